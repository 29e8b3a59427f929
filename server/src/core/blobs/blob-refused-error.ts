import { BlobRefusalCode } from "@svc/schemas";

/** The details of a refusal, discriminated by `code`. */
export type BlobRefusal =
  | { code: typeof BlobRefusalCode.too_large; max_bytes: number; received_bytes: number }
  | { code: typeof BlobRefusalCode.size_mismatch; expected_size: number; received_bytes: number }
  | { code: typeof BlobRefusalCode.hash_mismatch; expected_hash: string; actual_hash: string };

/**
 * A put refused its bytes. Nothing was kept: the temporary file is gone and no blob was added.
 * When reading stopped early (`too_large`, or `size_mismatch` with more bytes than expected),
 * `received_bytes` counts the bytes read so far, not the length of the whole source.
 */
export class BlobRefusedError extends Error {
  readonly refusal: BlobRefusal;

  constructor(refusal: BlobRefusal) {
    super(messageFor(refusal));
    this.name = "BlobRefusedError";
    this.refusal = refusal;
  }

  get code(): BlobRefusalCode {
    return this.refusal.code;
  }
}

function messageFor(refusal: BlobRefusal): string {
  switch (refusal.code) {
    case BlobRefusalCode.too_large:
      return `the content is larger than the limit of ${refusal.max_bytes} bytes: send at most ${refusal.max_bytes} bytes`;
    case BlobRefusalCode.size_mismatch:
      return `expected ${refusal.expected_size} bytes but ${refusal.received_bytes > refusal.expected_size ? "received more" : `received ${refusal.received_bytes}`}: send exactly the bytes that were declared`;
    case BlobRefusalCode.hash_mismatch:
      return `the content hashes to ${refusal.actual_hash}, not the declared ${refusal.expected_hash}: declare the hash of the bytes you send`;
    default: {
      const never: never = refusal;
      throw new Error(`Unhandled refusal: ${JSON.stringify(never)}`);
    }
  }
}
