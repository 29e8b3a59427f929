import {
  checkSchema,
  type LintCode,
  type LintNote,
  type LintRecord,
  type NoteCode,
  type SchemaName,
} from "@svc/schemas";
import { type ContentHash, sha256 } from "../hash/sha256.ts";
import { comparePaths, comparesByCodeUnit, sortPaths } from "../tree/compare-paths.ts";
import type { FileTree } from "../tree/file-tree.ts";
import { illFormedStringAt, jsonMayHoldIllFormedString } from "./ill-formed-string.ts";

/**
 * The state one lint run carries through its passes: the tree, the records found so far, and
 * caches so that each file is read, parsed and hashed at most once however many problems share it
 * (a campaign's contract is checked once per problem that inherits it).
 */
export class LintContext {
  readonly tree: FileTree;
  /** Every path in byte order, whatever order the tree listed them in. */
  readonly paths: readonly string[];
  readonly now: Date;
  readonly errors: LintRecord[] = [];
  readonly notes: LintNote[] = [];
  /** Fixture hashes `svc lint --fix` may write: never a link binding's. */
  readonly fixes: FixtureFix[] = [];
  /**
   * Contracts (file and fixtures folder) whose fixtures checkFixtures found all in a shared
   * fixtures/ folder: checking them again for another problem would report nothing new.
   */
  readonly sharedFixtureChecks = new Set<string>();
  readonly #bytes = new Map<string, Promise<Uint8Array>>();
  readonly #json = new Map<string, Promise<JsonRead>>();
  readonly #hashes = new Map<string, Promise<ContentHash>>();
  readonly #seen = new Set<string>();

  /** Every path compares by code unit (comparesByCodeUnit): `under` can search with `<`. */
  readonly #byCodeUnit: boolean;

  constructor(tree: FileTree, now: Date) {
    this.tree = tree;
    this.paths = sortPaths([...tree.paths()]);
    this.#byCodeUnit = this.paths.every(comparesByCodeUnit);
    this.now = now;
  }

  /** The paths that start with `prefix`, in byte order (a contiguous run of the sorted list). */
  under(prefix: string): readonly string[] {
    const paths = this.paths;
    // Lint asks this for each problem's folders; comparePaths' loop was most of it.
    const byCodeUnit = this.#byCodeUnit && comparesByCodeUnit(prefix);
    let lo = 0;
    let hi = paths.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byCodeUnit ? paths[mid]! < prefix : comparePaths(paths[mid]!, prefix) < 0) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < paths.length && paths[end]!.startsWith(prefix)) end++;
    return paths.slice(lo, end);
  }

  /** Starts reading every file at once, so the passes find bytes ready instead of waiting one by one. */
  async prefetch(): Promise<void> {
    await Promise.allSettled(this.paths.map((path) => this.bytes(path)));
  }

  has(path: string): boolean {
    return this.tree.size(path) !== undefined;
  }

  error(file: string, path: string, code: LintCode, message: string, rule?: number): void {
    const key = `E\0${file}\0${path}\0${code}\0${message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.errors.push(
      rule === undefined ? { file, path, code, message } : { file, path, code, message, rule },
    );
  }

  /** Records a fixture fix once, however many problems see the same (inherited) contract. */
  fix(fix: FixtureFix): void {
    const key = `F\0${fix.file}\0${fix.path}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.fixes.push(fix);
  }

  note(file: string, path: string, code: NoteCode, message: string): void {
    const key = `N\0${file}\0${path}\0${code}\0${message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.notes.push({ file, path, code, message });
  }

  bytes(path: string): Promise<Uint8Array> {
    let read = this.#bytes.get(path);
    if (!read) {
      read = this.tree.read(path);
      this.#bytes.set(path, read);
    }
    return read;
  }

  /**
   * A text file's contents. A NUL in it is an error at the file (with its line): text is stored
   * as PostgreSQL text, which cannot hold U+0000, so the server would refuse what lint passed.
   */
  async text(path: string): Promise<string> {
    const text = new TextDecoder("utf-8").decode(await this.bytes(path));
    const nul = text.indexOf("\u0000");
    if (nul !== -1) {
      const line = text.slice(0, nul).split("\n").length;
      this.error(
        path,
        "",
        "schema_violation",
        `${path} holds a NUL character (byte 0) on line ${line}: a package's text files cannot hold NUL; remove it`,
      );
    }
    return text;
  }

  hash(path: string): Promise<ContentHash> {
    let hash = this.#hashes.get(path);
    if (!hash) {
      hash = this.bytes(path).then(sha256);
      this.#hashes.set(path, hash);
    }
    return hash;
  }

  /** Parses a JSON file once; reports `invalid_json` (once) when it does not parse. */
  json(path: string): Promise<JsonRead> {
    let read = this.#json.get(path);
    if (!read) {
      // A NUL was reported by text(): parsing would only report it again.
      read = this.text(path).then((text) =>
        text.includes("\u0000") ? { ok: false as const, message: "" } : parseJson(text),
      );
      this.#json.set(path, read);
    }
    return read.then((result) => {
      if (!result.ok && result.message) this.error(path, "", "invalid_json", result.message);
      return result;
    });
  }

  /**
   * Parses a JSON file and checks it against a schema. Returns the value with schema defaults
   * filled in, or undefined after reporting why it cannot be used.
   */
  async schemaFile<T>(path: string, schema: SchemaName): Promise<T | undefined> {
    const read = await this.json(path);
    if (!read.ok) return undefined;
    return this.schemaValue<T>(path, "", read.value, schema);
  }

  /** Checks a value found at `base` inside `file` against a schema, reporting each issue. */
  schemaValue<T>(file: string, base: string, value: unknown, schema: SchemaName): T | undefined {
    const check = checkSchema<T>(schema, value);
    if (check.valid) return check.value;
    for (const issue of check.issues) this.error(file, base + issue.path, "schema_violation", issue.message);
    return undefined;
  }
}

export type JsonRead = { ok: true; value: unknown } | { ok: false; message: string };

function parseJson(text: string): JsonRead {
  // A byte order mark is legal in a file but not in JSON.parse.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    const value: unknown = JSON.parse(body);
    const bad = jsonMayHoldIllFormedString(body) ? illFormedStringAt(value) : undefined;
    if (bad !== undefined) {
      return {
        ok: false,
        message: `a string at "${bad}" holds a lone UTF-16 surrogate or a NUL (\\u0000) escape; use a valid character`,
      };
    }
    return { ok: true, value };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `not valid JSON: ${reason}; fix the syntax (a JSON linter shows the spot)` };
  }
}

/** A fixture input whose content_hash and size_bytes `--fix` writes from the file it names. */
export interface FixtureFix {
  file: string;
  /** JSON Pointer to the input object ({filename, content_hash, size_bytes}). */
  path: string;
  content_hash: ContentHash;
  size_bytes: number;
}
