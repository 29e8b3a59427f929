import { stat } from "node:fs/promises";
import { crc32, inflateRawSync } from "node:zlib";
import { type DocumentCeiling, documentCeiling, documentCeilingMessage } from "@svc/schemas";
import yauzl, { type Entry, type Options, type ZipFile } from "yauzl";
import { bytesTree } from "./bytes-tree.ts";
import {
  type ArchiveLimits,
  type FileTree,
  isIgnoredPath,
  SERVER_ARCHIVE_LIMITS,
  TreeError,
} from "./file-tree.ts";
import { PathIndex } from "./path-index.ts";
import { unsafePathReason } from "./unsafe-path-reason.ts";

/** Unix file type bits, stored in the upper 16 bits of an entry's external attributes. */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** General-purpose flag bit 0: the entry is encrypted. */
const ENCRYPTED = 0x1;

/**
 * Opens a ZIP archive (bytes or a file path) as a FileTree without extracting anything to disk.
 * The archive is treated as hostile: every entry is inflated once and its real bytes counted
 * against `limits` (declared sizes are never trusted), and the tree is refused with a TreeError
 * on an unsafe or duplicate name, a symbolic link, an encrypted entry, too many files, too many
 * bytes, a document over its ceiling (statement.md over 256 KiB: schemas/src/ceilings.ts, checked
 * on its declared size and again on every inflated chunk), or a corrupt archive. The bytes stay in memory, so `read()` is instant.
 *
 * Directory entries are not files; entries under `.svc/`, `.git` or `__MACOSX/` (Finder's
 * resource forks) are skipped.
 */
export async function openZipTree(
  zip: Uint8Array | string,
  limits: ArchiveLimits = SERVER_ARCHIVE_LIMITS,
): Promise<FileTree> {
  const zipfile = await openZipFile(zip, limits);
  const bytes = typeof zip === "string" ? null : Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  try {
    return bytesTree(await readEntries(zipfile, bytes, limits));
  } catch (error) {
    throw error instanceof TreeError ? error : invalidArchive(error);
  } finally {
    zipfile.close();
  }
}

async function openZipFile(zip: Uint8Array | string, limits: ArchiveLimits): Promise<ZipFile> {
  // Names are decoded and checked here (yauzl would rewrite backslashes and throw plain errors),
  // and sizes are counted here (yauzl would stop at the declared size with a vaguer reason).
  const options: Options = {
    lazyEntries: true,
    autoClose: false,
    decodeStrings: false,
    validateEntrySizes: false,
  };
  let zipfile: ZipFile;
  if (typeof zip === "string") {
    assertZippedSize(await archiveSize(zip), limits);
    zipfile = await yauzl.openPromise(zip, options).catch((error) => Promise.reject(invalidArchive(error)));
  } else {
    assertZippedSize(zip.byteLength, limits);
    const buffer = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
    zipfile = await yauzl
      .fromBufferPromise(buffer, options)
      .catch((error) => Promise.reject(invalidArchive(error)));
  }
  // The central directory's count bounds the work before any entry is read. Zip tools add an
  // entry per folder, so up to one folder entry per file is allowed here; files are counted below.
  if (zipfile.entryCount > 2 * limits.maxFiles) {
    zipfile.close();
    throw new TreeError(
      "too_many_files",
      `the archive lists ${zipfile.entryCount} entries; a package holds at most ${limits.maxFiles} files`,
    );
  }
  return zipfile;
}

/** `archive`: the archive's bytes when it was opened from memory (entries are then inflated in one call). */
async function readEntries(
  zipfile: ZipFile,
  archive: Buffer | null,
  limits: ArchiveLimits,
): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const index = new PathIndex("archive entry");
  let unpacked = 0;
  for await (const entry of zipfile.eachEntry()) {
    const name = yauzl.getFileNameLowLevel(
      entry.generalPurposeBitFlag,
      entry.fileNameRaw,
      entry.extraFields,
      true,
    );
    const isFolder = name.endsWith("/");
    const path = isFolder ? name.slice(0, -1) : name;
    const reason = unsafePathReason(path);
    if (reason !== undefined) {
      throw new TreeError(
        "unsafe_path",
        `archive entry "${name}" ${reason}; zip the package directory itself`,
        name,
      );
    }
    if (isFolder || isSkipped(path)) continue;
    if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
      throw new TreeError(
        "symlink",
        `archive entry "${name}" is a symbolic link; a package must be self-contained, so zip the file it points to`,
        name,
      );
    }
    if (entry.generalPurposeBitFlag & ENCRYPTED) {
      throw new TreeError(
        "encrypted_entry",
        `archive entry "${name}" is encrypted; zip it without a password`,
        name,
      );
    }
    if (files.size === limits.maxFiles) {
      throw new TreeError(
        "too_many_files",
        `archive entry "${name}" is file ${limits.maxFiles + 1}; a package holds at most ${limits.maxFiles} files`,
        name,
      );
    }
    index.add(path);
    const ceiling = documentCeiling(path);
    // A declared size is never trusted to be small, but one over the ceiling is refused unread.
    if (ceiling !== undefined && entry.uncompressedSize > ceiling.bytes) {
      throw entryTooLarge(name, path, entry.uncompressedSize, ceiling);
    }
    const named = { name, path, ceiling };
    const bytes = await (archive === null
      ? inflateEntry(zipfile, entry, named, limits, unpacked)
      : Promise.resolve().then(() => inflateEntryInMemory(archive, entry, named, limits, unpacked))
    ).catch((error: unknown) => {
      throw error instanceof TreeError ? error : invalidArchive(error, name);
    });
    unpacked += bytes.byteLength;
    files.set(path, bytes);
  }
  return files;
}

/**
 * The entry's real bytes, refusing as soon as the entry passes its own ceiling or the package's
 * running total passes the archive's.
 */
async function inflateEntry(
  zipfile: ZipFile,
  entry: Entry,
  { name, path, ceiling }: { name: string; path: string; ceiling: DocumentCeiling | undefined },
  limits: ArchiveLimits,
  unpackedBefore: number,
): Promise<Uint8Array> {
  const stream = await zipfile.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  let size = 0;
  let crc = 0;
  // Leaving this loop early (by throwing) destroys the stream, so a bomb is never inflated further.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (ceiling !== undefined && size > ceiling.bytes) throw entryTooLarge(name, path, size, ceiling);
    if (unpackedBefore + size > limits.maxUnpackedBytes) throw unpackedTooLarge(limits, name);
    crc = crc32(chunk, crc);
    chunks.push(chunk);
  }
  if (size !== entry.uncompressedSize) {
    throw invalidArchive(`it declares ${entry.uncompressedSize} bytes but holds ${size}`, name);
  }
  if (crc !== entry.crc32) throw invalidArchive("it fails its CRC-32 check", name);
  return Buffer.concat(chunks, size);
}

/** General-purpose ZIP compression methods yauzl reads: stored and deflated. */
const STORED = 0;
const DEFLATED = 8;

/**
 * inflateEntry for an archive in memory (every upload the service validates): the entry's data is
 * sliced from the archive and inflated in one call, bounded by the entry's ceiling and what is
 * left of the archive's, so a bomb stops one byte past its limit. A stream per entry (yauzl's
 * reader, a zlib stream, the chunks) cost 0.3 s for a 900-file campaign; this costs its inflation.
 * The checks and refusals are inflateEntry's.
 */
function inflateEntryInMemory(
  archive: Buffer,
  entry: Entry,
  { name, path, ceiling }: { name: string; path: string; ceiling: DocumentCeiling | undefined },
  limits: ArchiveLimits,
  unpackedBefore: number,
): Uint8Array {
  const data = entryData(archive, entry);
  const left = limits.maxUnpackedBytes - unpackedBefore;
  const bound = Math.min(ceiling?.bytes ?? left, left);
  let bytes: Buffer;
  if (entry.compressionMethod === STORED) {
    bytes = Buffer.from(data.subarray(0, bound + 1));
  } else if (entry.compressionMethod === DEFLATED) {
    try {
      bytes = inflateRawSync(data, { maxOutputLength: bound + 1 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ERR_BUFFER_TOO_LARGE") throw error;
      throw pastBound(name, path, bound + 1, ceiling, limits, unpackedBefore)!;
    }
  } else {
    throw new Error(`unsupported compression method: ${entry.compressionMethod}`);
  }
  const refusal = pastBound(name, path, bytes.byteLength, ceiling, limits, unpackedBefore);
  if (refusal) throw refusal;
  if (bytes.byteLength !== entry.uncompressedSize) {
    throw invalidArchive(`it declares ${entry.uncompressedSize} bytes but holds ${bytes.byteLength}`, name);
  }
  if (crc32(bytes) !== entry.crc32) throw invalidArchive("it fails its CRC-32 check", name);
  return bytes;
}

/** The entry's raw (compressed) data, found through its local header as yauzl finds it. */
function entryData(archive: Buffer, entry: Entry): Buffer {
  const header = entry.relativeOffsetOfLocalHeader;
  if (header + 30 > archive.byteLength) throw new Error("unexpected EOF");
  const signature = archive.readUInt32LE(header);
  if (signature !== 0x04034b50) {
    throw new Error(`invalid local file header signature: 0x${signature.toString(16)}`);
  }
  const start = header + 30 + archive.readUInt16LE(header + 26) + archive.readUInt16LE(header + 28);
  if (start + entry.compressedSize > archive.byteLength) {
    throw new Error(
      `file data overflows file bounds: ${start} + ${entry.compressedSize} > ${archive.byteLength}`,
    );
  }
  return archive.subarray(start, start + entry.compressedSize);
}

/** The refusal of an entry of `size` bytes (so far) past its ceiling or the archive's, as inflateEntry refuses it. */
function pastBound(
  name: string,
  path: string,
  size: number,
  ceiling: DocumentCeiling | undefined,
  limits: ArchiveLimits,
  unpackedBefore: number,
): TreeError | undefined {
  if (ceiling !== undefined && size > ceiling.bytes) return entryTooLarge(name, path, size, ceiling);
  if (unpackedBefore + size > limits.maxUnpackedBytes) return unpackedTooLarge(limits, name);
  return undefined;
}

function unpackedTooLarge(limits: ArchiveLimits, name: string): TreeError {
  return new TreeError(
    "unpacked_too_large",
    `the archive unpacks to more than ${limits.maxUnpackedBytes} bytes (passed at entry "${name}"); ` +
      "remove large files or split the package",
    name,
  );
}

function entryTooLarge(name: string, path: string, size: number, ceiling: DocumentCeiling): TreeError {
  // The size is what was seen so far (declared or inflated), so the message says "at least".
  return new TreeError(
    "entry_too_large",
    `archive entry ${documentCeilingMessage(path, size, ceiling, true)}`,
    name,
  );
}

function isSkipped(path: string): boolean {
  return isIgnoredPath(path) || path === "__MACOSX" || path.startsWith("__MACOSX/");
}

function assertZippedSize(bytes: number, limits: ArchiveLimits): void {
  if (bytes > limits.maxZippedBytes) {
    throw new TreeError(
      "archive_too_large",
      `the archive is ${bytes} bytes; the ceiling is ${limits.maxZippedBytes} bytes zipped, ` +
        "so remove large files or split the package",
    );
  }
}

async function archiveSize(file: string): Promise<number> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") {
      throw new TreeError("not_found", `archive "${file}" does not exist`);
    }
    throw error;
  });
  if (!info.isFile()) throw new TreeError("invalid_archive", `"${file}" is not a file; pass a ZIP archive`);
  return info.size;
}

function invalidArchive(reason: unknown, entry?: string): TreeError {
  const text = reason instanceof Error ? reason.message : String(reason);
  const where = entry === undefined ? "" : `entry "${entry}": `;
  return new TreeError(
    "invalid_archive",
    `the archive is not a readable ZIP (${where}${text}); re-create it with a standard zip tool`,
    entry,
  );
}
