import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { ContentHash } from "@svc/app";
import { BlobRefusalCode } from "@svc/schemas";
import { BlobRefusedError } from "./blob-refused-error.ts";
import type { BlobSource, PutResult } from "./blob-store.ts";
import type { PutLimits } from "./check-put-options.ts";

/**
 * Hashes and counts a put's bytes and applies its limits: the one home of the refusal rules every
 * store shares. `add` is called with each chunk before the chunk is written anywhere, so bytes
 * over a limit never reach storage; `finish` settles the size and hash once the source ends.
 */
export class BlobMeter {
  readonly #hash = createHash("sha256");
  readonly #limits: PutLimits;
  #size = 0;

  constructor(limits: PutLimits) {
    this.#limits = limits;
  }

  /** Counts and hashes one chunk; throws BlobRefusedError as soon as a limit is passed. */
  add(chunk: unknown): Uint8Array {
    if (!(chunk instanceof Uint8Array)) throw new TypeError("a blob source must yield bytes, not text");
    this.#size += chunk.byteLength;
    const { maxBytes, expectedSize } = this.#limits;
    if (maxBytes !== undefined && this.#size > maxBytes) {
      throw new BlobRefusedError({
        code: BlobRefusalCode.too_large,
        max_bytes: maxBytes,
        received_bytes: this.#size,
      });
    }
    if (expectedSize !== undefined && this.#size > expectedSize) {
      throw new BlobRefusedError({
        code: BlobRefusalCode.size_mismatch,
        expected_size: expectedSize,
        received_bytes: this.#size,
      });
    }
    this.#hash.update(chunk);
    return chunk;
  }

  /** The blob's identity once the source has ended; throws BlobRefusedError on a short body or another hash. */
  finish(): PutResult {
    const { expectedSize, expectedHash } = this.#limits;
    if (expectedSize !== undefined && this.#size !== expectedSize) {
      throw new BlobRefusedError({
        code: BlobRefusalCode.size_mismatch,
        expected_size: expectedSize,
        received_bytes: this.#size,
      });
    }
    const content_hash: ContentHash = `sha256:${this.#hash.digest("hex")}`;
    if (expectedHash !== undefined && content_hash !== expectedHash) {
      throw new BlobRefusedError({
        code: BlobRefusalCode.hash_mismatch,
        expected_hash: expectedHash,
        actual_hash: content_hash,
      });
    }
    return { content_hash, size_bytes: this.#size };
  }
}

/** The chunks of a put's source, read without ever destroying a caller's stream. */
export function chunksOf(source: BlobSource): AsyncIterable<unknown> | Iterable<unknown> {
  if (source instanceof Uint8Array) return [source];
  // Leaving the loop early must not destroy the caller's stream (an HTTP request whose socket
  // still has to carry the 413); the default iterator would destroy it.
  if (source instanceof Readable) return source.iterator({ destroyOnReturn: false });
  return source;
}
