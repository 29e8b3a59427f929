import type { ParseResult } from "./parse-dimacs.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8 text; a byte order mark is dropped, invalid UTF-8 is a failure. */
export function decodeText(bytes: Uint8Array): ParseResult<string> {
  try {
    return { ok: true, value: utf8.decode(bytes) };
  } catch {
    return { ok: false, reason: "it is not valid UTF-8" };
  }
}

/** Parses UTF-8 JSON bytes; the reason names the parser's complaint. */
export function decodeJson(bytes: Uint8Array): ParseResult<unknown> {
  const text = decodeText(bytes);
  if (!text.ok) return text;
  try {
    return { ok: true, value: JSON.parse(text.value) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
