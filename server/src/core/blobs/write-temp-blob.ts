import { createHash } from "node:crypto";
import { type FileHandle, open, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import type { ContentHash } from "@svc/app";
import { BlobRefusalCode } from "@svc/schemas";
import { BlobRefusedError } from "./blob-refused-error.ts";
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
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of chunksOf(source)) {
    if (!(chunk instanceof Uint8Array)) throw new TypeError("a blob source must yield bytes, not text");
    size += chunk.byteLength;
    // Checked before the chunk is written: bytes over a limit never reach the disk.
    refuseIfTooMany(size, limits);
    hash.update(chunk);
    await writeAll(file, chunk);
  }
  if (limits.expectedSize !== undefined && size !== limits.expectedSize) {
    throw new BlobRefusedError({
      code: BlobRefusalCode.size_mismatch,
      expected_size: limits.expectedSize,
      received_bytes: size,
    });
  }
  const content_hash: ContentHash = `sha256:${hash.digest("hex")}`;
  if (limits.expectedHash !== undefined && content_hash !== limits.expectedHash) {
    throw new BlobRefusedError({
      code: BlobRefusalCode.hash_mismatch,
      expected_hash: limits.expectedHash,
      actual_hash: content_hash,
    });
  }
  return { content_hash, size_bytes: size };
}

function refuseIfTooMany(size: number, limits: PutLimits): void {
  if (limits.maxBytes !== undefined && size > limits.maxBytes) {
    throw new BlobRefusedError({
      code: BlobRefusalCode.too_large,
      max_bytes: limits.maxBytes,
      received_bytes: size,
    });
  }
  if (limits.expectedSize !== undefined && size > limits.expectedSize) {
    throw new BlobRefusedError({
      code: BlobRefusalCode.size_mismatch,
      expected_size: limits.expectedSize,
      received_bytes: size,
    });
  }
}

function chunksOf(source: BlobSource): AsyncIterable<unknown> | Iterable<unknown> {
  if (source instanceof Uint8Array) return [source];
  // Leaving the loop early must not destroy the caller's stream (an HTTP request whose socket
  // still has to carry the 413); the default iterator would destroy it.
  if (source instanceof Readable) return source.iterator({ destroyOnReturn: false });
  return source;
}

async function writeAll(file: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await file.write(chunk, offset);
    offset += bytesWritten;
  }
}
