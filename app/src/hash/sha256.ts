import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** A hash string as the spec writes them: `sha256:` and 64 lowercase hex characters. */
export type ContentHash = `sha256:${string}`;

/** sha256 of raw bytes, as a ContentHash. */
export function sha256(bytes: Uint8Array | string): ContentHash {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** RFC 8785 canonical JSON: key order, whitespace and number spelling never change it. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("value has no canonical JSON form");
  return text;
}

/** sha256 of the canonical JSON of a value: the content hash of every content-addressed document. */
export function hashJson(value: unknown): ContentHash {
  return sha256(canonicalJson(value));
}
