import { crc32 } from "node:zlib";
import { comparePaths } from "./compare-paths.ts";
import { type Deflate, deflateLevel6 } from "./deflate-cache.ts";
import type { FileTree } from "./file-tree.ts";

/**
 * Packs a FileTree into a deterministic ZIP: paths in byte order, a fixed timestamp and mode, every
 * file deflated (zlib level 6). The same files give the same bytes (on the same zlib), so an
 * upload's archive depends on the package's content only. This is how `svc upload` packs a
 * package.
 *
 * The layout is byte for byte what yazl 3 wrote for this package before (streamed entries: a
 * local header without sizes, the data, a data descriptor; a central record without extra fields;
 * ZIP64 records only past 4 GiB), so archives and their content hashes did not change when the
 * writer did. yazl piped every entry through five streams (a CRC watcher, two byte counters and a
 * zlib stream of its own): 0.3 s for a 900-file campaign, packed twice per `svc draft`. Here each
 * file is deflated in one call, one at a time, so one zlib state lives at a time. `deflate` may
 * answer from a DeflateCache: the same bytes, without deflating an unchanged file again.
 */
export async function zipTree(tree: FileTree, deflate: Deflate = deflateLevel6): Promise<Buffer> {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const write = (part: Buffer) => {
    parts.push(part);
    offset += part.byteLength;
  };
  for (const path of [...tree.paths()].sort(comparePaths)) {
    const bytes = await tree.read(path);
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const name = Buffer.from(path);
    const entry: ZipEntry = {
      name,
      crc: crc32(data),
      size: data.byteLength,
      compressed: 0,
      offset,
    };
    write(localHeader(entry));
    const deflated = deflate(data);
    entry.compressed = deflated.byteLength;
    write(deflated);
    write(dataDescriptor(entry));
    central.push(centralRecord(entry));
  }
  const centralStart = offset;
  for (const record of central) write(record);
  write(endOfCentralDirectory(central.length, offset - centralStart, centralStart, offset));
  return Buffer.concat(parts, offset);
}

interface ZipEntry {
  name: Buffer;
  crc: number;
  size: number;
  compressed: number;
  /** Where the entry's local header starts. */
  offset: number;
}

/** Version 2.0 (UTF-8 names, deflate); 4.5 for an entry that needs ZIP64. */
const VERSION_NEEDED = 20;
const VERSION_NEEDED_ZIP64 = 45;
/** Made by Unix (3), spec version 6.3: what yazl writes. */
const VERSION_MADE_BY = (3 << 8) | 63;
/** UTF-8 names, and sizes and CRC in a data descriptor after the data. */
const FLAGS = (1 << 11) | (1 << 3);
const DEFLATE = 8;
/** 1980-01-01 00:00 as a DOS time and date, the earliest a ZIP can state: every entry's timestamp. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
/** A regular file, mode 0644, in the upper half of the external attributes. */
const EXTERNAL_ATTRIBUTES = (0o100644 << 16) >>> 0;
const MAX_32 = 0xffffffff;

function needsZip64(entry: ZipEntry): boolean {
  return entry.size > 0xfffffffe || entry.compressed > 0xfffffffe || entry.offset > 0xfffffffe;
}

function localHeader(entry: ZipEntry): Buffer {
  const header = Buffer.alloc(30 + entry.name.byteLength);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(VERSION_NEEDED, 4);
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(DOS_TIME, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  // CRC and sizes (14-25) stay 0: the data descriptor states them.
  header.writeUInt16LE(entry.name.byteLength, 26);
  header.writeUInt16LE(0, 28);
  entry.name.copy(header, 30);
  return header;
}

function dataDescriptor(entry: ZipEntry): Buffer {
  if (!needsZip64(entry)) {
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(entry.crc, 4);
    descriptor.writeUInt32LE(entry.compressed, 8);
    descriptor.writeUInt32LE(entry.size, 12);
    return descriptor;
  }
  const descriptor = Buffer.alloc(24);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  descriptor.writeBigUInt64LE(BigInt(entry.compressed), 8);
  descriptor.writeBigUInt64LE(BigInt(entry.size), 16);
  return descriptor;
}

function centralRecord(entry: ZipEntry): Buffer {
  const zip64 = needsZip64(entry);
  const extra = zip64 ? 28 : 0;
  const record = Buffer.alloc(46 + entry.name.byteLength + extra);
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE(VERSION_MADE_BY, 4);
  record.writeUInt16LE(zip64 ? VERSION_NEEDED_ZIP64 : VERSION_NEEDED, 6);
  record.writeUInt16LE(FLAGS, 8);
  record.writeUInt16LE(DEFLATE, 10);
  record.writeUInt16LE(DOS_TIME, 12);
  record.writeUInt16LE(DOS_DATE, 14);
  record.writeUInt32LE(entry.crc, 16);
  record.writeUInt32LE(zip64 ? MAX_32 : entry.compressed, 20);
  record.writeUInt32LE(zip64 ? MAX_32 : entry.size, 24);
  record.writeUInt16LE(entry.name.byteLength, 28);
  record.writeUInt16LE(extra, 30);
  // Comment length, disk number and internal attributes (32-37) stay 0.
  record.writeUInt32LE(EXTERNAL_ATTRIBUTES, 38);
  record.writeUInt32LE(zip64 ? MAX_32 : entry.offset, 42);
  entry.name.copy(record, 46);
  if (zip64) {
    const at = 46 + entry.name.byteLength;
    record.writeUInt16LE(0x0001, at);
    record.writeUInt16LE(24, at + 2);
    record.writeBigUInt64LE(BigInt(entry.size), at + 4);
    record.writeBigUInt64LE(BigInt(entry.compressed), at + 12);
    record.writeBigUInt64LE(BigInt(entry.offset), at + 20);
  }
  return record;
}

/** The end of central directory record, preceded by the ZIP64 record and locator when needed. */
function endOfCentralDirectory(entries: number, size: number, start: number, end: number): Buffer {
  const zip64 = entries >= 0xffff || size >= MAX_32 || start >= MAX_32;
  const record = Buffer.alloc(22);
  record.writeUInt32LE(0x06054b50, 0);
  record.writeUInt16LE(Math.min(entries, 0xffff), 8);
  record.writeUInt16LE(Math.min(entries, 0xffff), 10);
  record.writeUInt32LE(size >= MAX_32 ? MAX_32 : size, 12);
  record.writeUInt32LE(start >= MAX_32 ? MAX_32 : start, 16);
  if (!zip64) return record;
  const zip64Record = Buffer.alloc(56);
  zip64Record.writeUInt32LE(0x06064b50, 0);
  zip64Record.writeBigUInt64LE(44n, 4);
  zip64Record.writeUInt16LE(VERSION_MADE_BY, 12);
  zip64Record.writeUInt16LE(VERSION_NEEDED_ZIP64, 14);
  zip64Record.writeBigUInt64LE(BigInt(entries), 24);
  zip64Record.writeBigUInt64LE(BigInt(entries), 32);
  zip64Record.writeBigUInt64LE(BigInt(size), 40);
  zip64Record.writeBigUInt64LE(BigInt(start), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(end), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([zip64Record, locator, record]);
}
