/** Content-addressed blob storage: the interface, the local directory and S3 stores, and their errors. */
export { blobPath } from "./blob-path.ts";
export { type BlobRefusal, BlobRefusedError } from "./blob-refused-error.ts";
export type { BlobSource, BlobStat, BlobStore, PutOptions, PutResult } from "./blob-store.ts";
export { assertContentHash, CONTENT_HASH_PATTERN, isContentHash } from "./content-hash.ts";
export { InvalidContentHashError } from "./invalid-content-hash-error.ts";
export { openLocalBlobStore } from "./open-local-blob-store.ts";
export { openS3BlobStore, type S3BlobStoreSettings } from "./open-s3-blob-store.ts";
