import { crc32, deflateRawSync } from "node:zlib";

/**
 * A tiny ZIP writer for hostile test archives. yazl refuses unsafe names and always tells the
 * truth about sizes, so this writes the three structures by hand: a local header and data per
 * entry, then the central directory, then the end record (APPNOTE 4.3.7, 4.3.12, 4.3.16).
 */
export interface RawEntry {
  name: string;
  data?: string | Uint8Array;
  /** Deflate the data (method 8) instead of storing it (method 0). */
  deflate?: boolean;
  /** Unix mode for the upper 16 bits of the external attributes; 0o120777 marks a symlink. */
  mode?: number;
  /** Extra general-purpose flag bits (bit 0: encrypted). Bit 11 (UTF-8 names) is always set. */
  flags?: number;
  /** Uncompressed size to write in both headers instead of the real one. */
  declaredSize?: number;
}

export function rawZip(entries: readonly RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const data = Buffer.from(entry.data ?? "");
    const body = entry.deflate ? deflateRawSync(data) : data;
    // Fields shared by both headers, from "version needed" to "extra field length".
    const common = Buffer.alloc(26);
    common.writeUInt16LE(20, 0); // version needed: 2.0
    common.writeUInt16LE(0x800 | (entry.flags ?? 0), 2);
    common.writeUInt16LE(entry.deflate ? 8 : 0, 4);
    common.writeUInt16LE(0, 6); // time 00:00
    common.writeUInt16LE(0x21, 8); // date 1980-01-01
    common.writeUInt32LE(crc32(data), 10);
    common.writeUInt32LE(body.length, 14);
    common.writeUInt32LE(entry.declaredSize ?? data.length, 18);
    common.writeUInt16LE(name.length, 22);
    common.writeUInt16LE(0, 24); // no extra field

    const local = Buffer.concat([u32(0x04034b50), common, name, body]);
    const tail = Buffer.alloc(14); // comment length, disk, internal attrs, external attrs, offset
    tail.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 6);
    tail.writeUInt32LE(offset, 10);
    // "version made by" 3.20: Unix, so the mode bits mean what they say.
    centrals.push(Buffer.concat([u32(0x02014b50), u16(0x0314), common, tail, name]));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}
