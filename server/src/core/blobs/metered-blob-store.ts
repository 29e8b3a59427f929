import { blobStoreErrors } from "../metrics/metrics.ts";
import { BlobRefusedError } from "./blob-refused-error.ts";
import type { BlobStore } from "./blob-store.ts";
import { InvalidContentHashError } from "./invalid-content-hash-error.ts";

/**
 * A blob store whose failures are counted by operation (`svc_blob_store_errors_total`): a disk
 * that is full or a bucket that does not answer shows on the dashboard before the uploads it
 * breaks are reported. Refusals of the content itself (too large, a hash that does not match, a
 * malformed hash) are the caller's, not the store's, and are not counted.
 */
export function meteredBlobStore(inner: BlobStore): BlobStore {
  const counted = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof BlobRefusedError) && !(error instanceof InvalidContentHashError)) {
        blobStoreErrors.labels(operation).inc();
      }
      throw error;
    }
  };
  return {
    put: (source, options) => counted("put", () => inner.put(source, options)),
    get: (hash) => counted("get", () => inner.get(hash)),
    has: (hash) => counted("has", () => inner.has(hash)),
    stat: (hash) => counted("stat", () => inner.stat(hash)),
    delete: (hash) => counted("delete", () => inner.delete(hash)),
  };
}
