import type { ContentHash } from "@svc/app";
import { InvalidContentHashError } from "./invalid-content-hash-error.ts";

/** The only spelling of a content hash the service accepts: `sha256:` and 64 lowercase hex digits. */
export const CONTENT_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** True when `value` is a well-formed content hash (says nothing about whether a blob exists). */
export function isContentHash(value: unknown): value is ContentHash {
  return typeof value === "string" && CONTENT_HASH_PATTERN.test(value);
}

/**
 * Throws {@link InvalidContentHashError} unless `value` is a well-formed content hash. Every blob
 * store method calls this before it builds a path, so no hash string can name a file outside the
 * store (`sha256:../../etc/passwd` is refused here, not by the file system).
 */
export function assertContentHash(value: unknown): asserts value is ContentHash {
  if (!isContentHash(value)) throw new InvalidContentHashError(value);
}
