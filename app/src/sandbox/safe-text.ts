/**
 * Checker output is data: every string a checker produces (result.json's summary, file names,
 * symlink targets, messages) passes through here before the service stores or shows it, so no
 * byte a checker chooses can make PostgreSQL, JSON or a hash refuse it (docs/sandbox.md, "Checker
 * output is data").
 *
 * One escaping, two uses:
 *
 * - `\xHH` stands for a byte that is not part of well-formed UTF-8 (a stray continuation byte, a
 *   truncated or overlong sequence, an encoded surrogate) and for the NUL byte (`\x00`);
 * - `\uDXXX` (4 upper-case hex digits) stands for a lone UTF-16 surrogate in a string that came
 *   from JSON (`"\ud800"` is legal JSON but not text);
 * - in *names* (file names, symlink targets) a backslash is written `\\`, so the escaped form is
 *   reversible and two different byte strings never share a name (`nameToBytes` undoes it). In
 *   *text* (summaries, messages) a backslash stays as it is: text is for reading.
 *
 * Everything else, valid UTF-8 included, is kept as it is.
 */

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Escapes raw bytes as a name: reversible, see the module comment. */
export function safeName(bytes: Uint8Array): string {
  return escapeBytes(bytes, true);
}

/** Escapes raw bytes as text (a backslash is kept as it is). */
export function safeTextFromBytes(bytes: Uint8Array): string {
  return escapeBytes(bytes, false);
}

/** Makes a JS string (from JSON) safe to store as text: NUL and lone surrogates escaped. */
export function safeText(text: string): string {
  // Fast path: most text has neither NUL nor a surrogate.
  if (text.isWellFormed() && !text.includes("\u0000")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) {
      out += "\\x00";
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!;
        i++;
      } else {
        out += surrogate(code);
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      out += surrogate(code);
    } else {
      out += text[i]!;
    }
  }
  return out;
}

/**
 * Escapes a name that arrived as a JS string (the supervisor's JSON report): Python hands over a
 * byte that is not UTF-8 as a lone surrogate U+DC80..U+DCFF (surrogateescape), which becomes `\xHH`
 * again, so the name stays byte-exact; any other lone surrogate is `\uDXXX`; NUL is `\x00`; a
 * backslash is `\\`.
 */
export function safeNameFromString(name: string): string {
  if (name.isWellFormed() && !name.includes("\u0000") && !name.includes("\\")) return name;
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    const next = name.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += name[i]! + name[i + 1]!;
      i++;
    } else if (code >= 0xdc80 && code <= 0xdcff) out += hexByte(code - 0xdc00);
    else if (code >= 0xd800 && code <= 0xdfff) out += surrogate(code);
    else if (code === 0) out += "\\x00";
    else if (code === 0x5c) out += "\\\\";
    else out += name[i]!;
  }
  return out;
}

/** The raw bytes an escaped name stands for (the inverse of `safeName`). */
export function nameToBytes(name: string): Buffer {
  const parts: Buffer[] = [];
  let plain = "";
  const flush = () => {
    if (plain !== "") parts.push(Buffer.from(plain, "utf8"));
    plain = "";
  };
  for (let i = 0; i < name.length; i++) {
    const char = name[i]!;
    if (char !== "\\") {
      plain += char;
      continue;
    }
    const next = name[i + 1];
    if (next === "\\") {
      plain += "\\";
      i++;
    } else if (next === "x" && /^[0-9A-F]{2}$/.test(name.slice(i + 2, i + 4))) {
      flush();
      parts.push(Buffer.from([Number.parseInt(name.slice(i + 2, i + 4), 16)]));
      i += 3;
    } else {
      throw new Error(`not an escaped name: a lone backslash at ${i}`);
    }
  }
  flush();
  return Buffer.concat(parts);
}

function escapeBytes(bytes: Uint8Array, name: boolean): string {
  if (!bytes.includes(0) && !(name && bytes.includes(0x5c))) {
    try {
      return utf8.decode(bytes);
    } catch {
      // Fall through to the byte-by-byte walk.
    }
  }
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length === 0) {
      out += hexByte(bytes[i]!);
      i += 1;
      continue;
    }
    const char = Buffer.from(bytes.subarray(i, i + length)).toString("utf8");
    out += char === "\u0000" ? "\\x00" : name && char === "\\" ? "\\\\" : char;
    i += length;
  }
  return out;
}

/**
 * Bytes as a string the way Python's surrogateescape does it: well-formed UTF-8 decoded, and
 * every byte that is not part of it as U+DC80..U+DCFF, which safeNameFromString turns back into
 * `\xHH`, byte-exactly (names read from the run's disk, read-output-dir.ts).
 */
export function surrogateEscaped(bytes: Uint8Array): string {
  let text = "";
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length === 0) {
      text += String.fromCharCode(0xdc00 + bytes[i]!);
      i += 1;
    } else {
      text += Buffer.from(bytes.subarray(i, i + length)).toString("utf8");
      i += length;
    }
  }
  return text;
}

/** Length of the well-formed UTF-8 sequence at `i` (RFC 3629 table), 0 when there is none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const b = bytes[i + k];
    return b !== undefined && b >= lo && b <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

function hexByte(byte: number): string {
  return `\\x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
}

function surrogate(code: number): string {
  return `\\u${code.toString(16).toUpperCase()}`;
}
