/** Content-addressed blob storage: the interface, the local directory store and their errors. */
export { blobPath } from "./blob-path.ts";
export { type BlobRefusal, BlobRefusedError } from "./blob-refused-error.ts";
export type { BlobSource, BlobStat, BlobStore, PutOptions, PutResult } from "./blob-store.ts";
export { assertContentHash, CONTENT_HASH_PATTERN, isContentHash } from "./content-hash.ts";
export { InvalidContentHashError } from "./invalid-content-hash-error.ts";
export { openLocalBlobStore } from "./open-local-blob-store.ts";
