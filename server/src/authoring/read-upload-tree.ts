import { buffer } from "node:stream/consumers";
import type { FileTree } from "@svc/app";
import { openZipTree, SERVER_ARCHIVE_LIMITS } from "@svc/app";
import type { BlobStore } from "../core/blobs/blob-store.ts";

/**
 * The package inside an uploaded archive, unpacked in memory under the server's ceilings (spec 8:
 * 5000 files, 64 MiB zipped, 256 MiB unpacked). A hostile archive (a bomb, an entry escaping the
 * root, a link) rejects with a TreeError naming the entry; nothing is ever written to disk.
 */
export async function readUploadTree(blobs: BlobStore, contentHash: string): Promise<FileTree> {
  const stream = await blobs.get(contentHash);
  // The blob was checked into the store before the upload became `uploaded`; its absence is ours.
  if (!stream) throw new Error(`the archive blob ${contentHash} is missing from the blob store`);
  return await openZipTree(await buffer(stream), SERVER_ARCHIVE_LIMITS);
}
