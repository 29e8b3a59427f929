import type { Readable } from "node:stream";
import type { ContentHash } from "@svc/app";

/**
 * Blob store: immutable byte strings addressed by their sha256 (`sha256:<hex>`). Artifacts,
 * reference inputs, evidence, logs and uploads all live here; records hold only the hash.
 *
 * Glossary: a *blob* is the stored bytes; its *content hash* is computed by the store, never
 * taken from a caller; a *put* either adds a whole blob or leaves nothing behind.
 */

/** What a put reads: a stream, any async iterable of byte chunks, or bytes already in memory. */
export type BlobSource = Readable | AsyncIterable<Uint8Array> | Uint8Array;

/** Conditions a put checks while it reads; any failure is a `BlobRefusedError` and keeps nothing. */
export interface PutOptions {
  /** The hash the caller declared; compared with the hash the store computes. */
  expectedHash?: string;
  /** The size the caller declared; reading stops as soon as it is exceeded. */
  expectedSize?: number;
  /** The most bytes accepted; reading stops at the first byte over. */
  maxBytes?: number;
}

/** The identity of a stored blob, as records carry it. */
export interface PutResult {
  content_hash: ContentHash;
  size_bytes: number;
}

export interface BlobStat {
  size_bytes: number;
}

/**
 * The store the service depends on. The local directory store (`openLocalBlobStore`) is the
 * default; each method notes what an S3-compatible store would do, so one can be written without
 * changing a caller. Every method that takes a hash rejects with `InvalidContentHashError` before
 * any I/O when the string is not `sha256:` and 64 lowercase hex digits.
 */
export interface BlobStore {
  /**
   * Reads `source` to its end while hashing and counting, and stores the bytes under their hash.
   * Rejects with `BlobRefusedError` (too large, size or hash differing from the declared one) and
   * keeps nothing. A blob appears whole or not at all; putting bytes already stored is a no-op.
   * A refused put stops reading and never destroys a `Readable` source: its owner decides (an HTTP
   * route can still answer 413 on the request's socket).
   *
   * S3: upload to a temporary key (multipart for large bodies) while hashing and counting locally,
   * aborting the upload on a refusal; then copy to `sha256/<aa>/<bb>/<hex>` with a conditional
   * write (`If-None-Match: *`, a no-op when the key exists) and the `x-amz-checksum-sha256` header
   * so the store itself checks the bytes, and delete the temporary key. When `expectedHash` is
   * given, a single PUT straight to the final key with that checksum header is enough.
   */
  put(source: BlobSource, options?: PutOptions): Promise<PutResult>;

  /**
   * A stream of the blob's bytes, or null when it is absent. The stream keeps reading the blob
   * it opened even if the blob is deleted meanwhile.
   *
   * S3: GetObject, null on `NoSuchKey`.
   */
  get(hash: string): Promise<Readable | null>;

  /** Whether the blob is stored. S3: HeadObject, false on 404. */
  has(hash: string): Promise<boolean>;

  /** The blob's size, or null when it is absent. S3: HeadObject's `Content-Length`. */
  stat(hash: string): Promise<BlobStat | null>;

  /**
   * Removes the blob; true when it existed. Callers delete only blobs that no record references.
   *
   * S3: DeleteObject after a HeadObject (DeleteObject alone does not say whether the key existed).
   */
  delete(hash: string): Promise<boolean>;
}
