import { type FileHandle, open, rm } from "node:fs/promises";
import { BlobMeter, chunksOf } from "./blob-meter.ts";
import type { BlobSource, PutResult } from "./blob-store.ts";
import type { PutLimits } from "./check-put-options.ts";

/**
 * Copies `source` into a new file at `tempPath`, hashing and counting as it goes, and checks the
 * limits. On any failure (a refusal, a source error, a disk error) the file is removed before the
 * error propagates, so a refused put leaves nothing behind. On success the file is flushed to disk,
 * ready to be renamed into place.
 */
export async function writeTempBlob(
  source: BlobSource,
  tempPath: string,
  limits: PutLimits,
): Promise<PutResult> {
  // "wx": a fresh name per put, never an existing file. 0o444: blobs are immutable once written.
  const file = await open(tempPath, "wx", 0o444);
  try {
    try {
      const blob = await copyHashing(source, file, limits);
      await file.sync();
      return blob;
    } finally {
      await file.close();
    }
  } catch (error) {
    await rm(tempPath, { force: true });
    throw error;
  }
}

async function copyHashing(source: BlobSource, file: FileHandle, limits: PutLimits): Promise<PutResult> {
  const meter = new BlobMeter(limits);
  for await (const chunk of chunksOf(source)) await writeAll(file, meter.add(chunk));
  return meter.finish();
}

async function writeAll(file: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await file.write(chunk, offset);
    offset += bytesWritten;
  }
}
