/**
 * The 1-based line of a JSON file where a lint record's JSON Pointer (RFC 6901) points: the line
 * of the member's key for an object member, of the item for an array item. When the pointer goes
 * further than the document (a missing required key is reported at its parent, a malformed file
 * stops the scan), the line of the deepest part that exists is given, so an annotation always lands
 * on a real line. `""` (the whole file) and texts that are not JSON give line 1. Never throws.
 *
 * The scan follows the pointer only: siblings are skipped, not parsed, so a large file costs one
 * pass up to the target. With duplicate keys the last one wins, as in JSON.parse.
 */
export function pointerToLine(text: string, pointer: string): number {
  if (!pointer.startsWith("/")) return 1;
  const segments = pointer
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  const scanner = new Scanner(text);
  let found = 0;
  scanner.skipSpace();
  for (const segment of segments) {
    const at = scanner.enter(segment);
    if (at === undefined) break;
    found = at;
  }
  return lineAt(text, found);
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

class Scanner {
  readonly text: string;
  pos = 0;
  constructor(text: string) {
    this.text = text;
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
  }

  skipSpace(): void {
    while (this.pos < this.text.length && " \t\r\n".includes(this.text[this.pos]!)) this.pos++;
  }

  /**
   * With `pos` at the start of a value, moves to the start of its child `segment` and returns
   * where that child is reported (its key for a member); undefined when there is no such child.
   */
  enter(segment: string): number | undefined {
    const open = this.text[this.pos];
    if (open === "{") return this.enterMember(segment);
    if (open === "[") return this.enterItem(segment);
    return undefined;
  }

  enterMember(name: string): number | undefined {
    this.pos++;
    let match: { key: number; value: number } | undefined;
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') break;
      const key = this.pos;
      const decoded = this.readString();
      if (decoded === undefined) break;
      this.skipSpace();
      if (this.text[this.pos] !== ":") break;
      this.pos++;
      this.skipSpace();
      const value = this.pos;
      if (decoded === name) match = { key, value };
      if (!this.skipValue()) break;
      this.skipSpace();
      if (this.text[this.pos] !== ",") break;
      this.pos++;
    }
    if (!match) return undefined;
    this.pos = match.value;
    return match.key;
  }

  enterItem(segment: string): number | undefined {
    if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
    const index = Number(segment);
    this.pos++;
    for (let i = 0; ; i++) {
      this.skipSpace();
      if (this.pos >= this.text.length || this.text[this.pos] === "]") return undefined;
      if (i === index) return this.pos;
      if (!this.skipValue()) return undefined;
      this.skipSpace();
      if (this.text[this.pos] !== ",") return undefined;
      this.pos++;
    }
  }

  /** Reads a string at `pos` and returns its value; undefined when it is not a valid string. */
  readString(): string | undefined {
    const start = this.pos;
    if (!this.skipString()) return undefined;
    try {
      return JSON.parse(this.text.slice(start, this.pos)) as string;
    } catch {
      return undefined;
    }
  }

  skipString(): boolean {
    this.pos++;
    while (this.pos < this.text.length) {
      const c = this.text[this.pos++];
      if (c === "\\") this.pos++;
      else if (c === '"') return true;
    }
    return false;
  }

  /** Skips one value of any kind; false when the text ends first. */
  skipValue(): boolean {
    let depth = 0;
    do {
      if (this.pos >= this.text.length) return false;
      const c = this.text[this.pos]!;
      if (c === '"') {
        if (!this.skipString()) return false;
      } else if (c === "{" || c === "[") {
        depth++;
        this.pos++;
      } else if (c === "}" || c === "]") {
        if (depth === 0) return false;
        depth--;
        this.pos++;
      } else if (depth > 0) {
        this.pos++;
      } else {
        // A number or a literal: up to the next delimiter.
        const start = this.pos;
        while (this.pos < this.text.length && !",}] \t\r\n".includes(this.text[this.pos]!)) this.pos++;
        return this.pos > start;
      }
    } while (depth > 0);
    return true;
  }
}
