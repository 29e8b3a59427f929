import type { BlobStore } from "../core/blobs/blob-store.ts";
import { ServiceError } from "../core/errors/service-error.ts";

/**
 * The whole blob in memory, for resources small enough to inline. A blob a record names but the
 * store lacks is the service's own fault, reported as `internal` with the hash for the log.
 */
export async function readBlobBytes(blobs: BlobStore, contentHash: string): Promise<Buffer> {
  const stream = await blobs.get(contentHash);
  if (!stream) {
    throw new ServiceError("internal", `stored bytes ${contentHash} are missing from the blob store`, {
      content_hash: contentHash,
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
