import { hash } from "node:crypto";
import canonicalize from "canonicalize";

/** A hash string as the spec writes them: `sha256:` and 64 lowercase hex characters. */
export type ContentHash = `sha256:${string}`;

/**
 * sha256 of raw bytes (a string: of its UTF-8), as a ContentHash. Node's one-shot `hash`, not a
 * Hash object per call: lint and packing hash each of a campaign's ~900 files (issue 38).
 */
export function sha256(bytes: Uint8Array | string): ContentHash {
  return `sha256:${hash("sha256", bytes, "hex")}`;
}

/**
 * RFC 8785 canonical JSON: key order, whitespace and number spelling never change it. Plain data
 * (what plans, documents and records are) is copied with its keys in RFC 8785's order and written
 * by the native JSON.stringify: RFC 8785 writes strings and numbers as JSON.stringify does, so the
 * text is the one canonicalize writes, several times faster (issue 38: a plan_hash of 300 problems
 * took 10 ms in canonicalize). Anything else (toJSON, boxed values, cycles, a lone surrogate, a
 * number JSON cannot hold) goes to canonicalize, which writes or refuses it.
 */
export function canonicalJson(value: unknown): string {
  const ordered = inCanonicalOrder(value, 0);
  const text = ordered === NOT_PLAIN ? canonicalize(value) : JSON.stringify(ordered);
  if (text === undefined) throw new TypeError("value has no canonical JSON form");
  return text;
}

/** sha256 of the canonical JSON of a value: the content hash of every content-addressed document. */
export function hashJson(value: unknown): ContentHash {
  return sha256(canonicalJson(value));
}

const NOT_PLAIN = Symbol("not plain data");

/** Beyond this depth a value may be a cycle: canonicalize finds it. */
const MAX_PLAIN_DEPTH = 1000;

/** A key JavaScript objects enumerate first, in numeric order, whatever the order they were added. */
const ARRAY_INDEX_LIKE = /^(?:0|[1-9][0-9]*)$/;

/**
 * A copy of plain data (null, booleans, finite numbers, well-formed strings, arrays, objects of
 * Object or null prototype without toJSON) whose objects enumerate their keys in RFC 8785's order
 * (UTF-16 code units), or NOT_PLAIN. Undefined members are left out, undefined elements become
 * null, as both writers do.
 */
function inCanonicalOrder(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
      return value.isWellFormed() ? value : NOT_PLAIN;
    case "number":
      return Number.isFinite(value) ? value : NOT_PLAIN;
    case "boolean":
      return value;
    case "object":
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth > MAX_PLAIN_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function")
    return NOT_PLAIN;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const element = value[i];
      const ordered = element === undefined ? null : inCanonicalOrder(element, depth + 1);
      if (ordered === NOT_PLAIN) return NOT_PLAIN;
      copy[i] = ordered;
    }
    return copy;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    if (key === "__proto__" || ARRAY_INDEX_LIKE.test(key) || !key.isWellFormed()) return NOT_PLAIN;
    const member = record[key];
    if (member === undefined) continue;
    const ordered = inCanonicalOrder(member, depth + 1);
    if (ordered === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = ordered;
  }
  return copy;
}
