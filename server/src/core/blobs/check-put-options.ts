import type { ContentHash } from "@svc/app";
import type { PutOptions } from "./blob-store.ts";
import { assertContentHash } from "./content-hash.ts";

/** Put options after validation: the declared hash is known to be well formed. */
export interface PutLimits {
  expectedHash?: ContentHash;
  expectedSize?: number;
  maxBytes?: number;
}

/**
 * Validates put options before any byte is read or any file created: a malformed declared hash is
 * an `InvalidContentHashError`, a size that is not a non-negative safe integer a `RangeError`.
 */
export function checkPutOptions(options: PutOptions): PutLimits {
  const { expectedHash, expectedSize, maxBytes } = options;
  if (expectedHash !== undefined) assertContentHash(expectedHash);
  checkByteCount("expectedSize", expectedSize);
  checkByteCount("maxBytes", maxBytes);
  return { expectedHash, expectedSize, maxBytes };
}

function checkByteCount(name: string, value: number | undefined): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= 0)) return;
  throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}
