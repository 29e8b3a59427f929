import { buffer } from "node:stream/consumers";
import type { FileTree } from "@svc/app";
import type { BlobStore } from "../core/blobs/blob-store.ts";
import { validationPool } from "./validation-pool.ts";

/**
 * Reads an upload's archive from the blob store: a function handed to the validation pool, which
 * calls it once the work has a thread. The blob was checked into the store before the upload
 * became `uploaded`, so its absence is the service's fault, not the author's.
 */
export function uploadArchive(blobs: BlobStore, contentHash: string): () => Promise<Uint8Array> {
  return async () => {
    const stream = await blobs.get(contentHash);
    if (!stream) throw new Error(`the archive blob ${contentHash} is missing from the blob store`);
    return await buffer(stream);
  };
}

/**
 * The package inside an uploaded archive, unpacked on the validation pool (off the request thread)
 * under the server's ceilings (spec 8: 5000 files, 64 MiB zipped, 256 MiB unpacked, and each
 * document's ceiling). A hostile archive rejects with a TreeError naming the entry; nothing is
 * ever written to disk.
 */
export async function readUploadTree(blobs: BlobStore, contentHash: string): Promise<FileTree> {
  return await validationPool().unpack(uploadArchive(blobs, contentHash));
}
