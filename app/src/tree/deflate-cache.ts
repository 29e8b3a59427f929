import { hash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";

/** How zipTree deflates one file's bytes: raw deflate at level 6, the level every archive hash assumes. */
export type Deflate = (data: Buffer) => Buffer;

export const deflateLevel6: Deflate = (data) => deflateRawSync(data, { level: 6 });

/** The first line of a cache file: a cache of another format, zlib or level is not read. */
const HEADER = `${JSON.stringify({ svc_deflate_cache: 1, zlib: process.versions.zlib, level: 6 })}\n`;

/**
 * The deflated bytes of the files an earlier `svc draft` packed, by the sha256 of their raw bytes,
 * so an unchanged file is not deflated again: deflating was most of packing a 300-problem campaign
 * (about 65 ms of each draft, also a noop republish or a draft whose shards are all skipped, which
 * still packs them for their hashes). Deflate is deterministic for one zlib build and level, which
 * the file's header names, so an archive packed with the cache is byte for byte the one packed
 * without it (tested); the ZIP's CRC-32 is always computed from the raw bytes, and a cached stream
 * is checked by inflating it (a quarter of deflating's cost). The file holds only
 * the entries the last run used, written through a rename (`<dir>/.svc/deflate-cache.bin`).
 */
export class DeflateCache {
  readonly #known: Map<string, Buffer>;
  readonly #used = new Map<string, Buffer>();

  private constructor(known: Map<string, Buffer>) {
    this.#known = known;
  }

  /** The cache stored at `file`; empty when there is none or it is unreadable or of another zlib. */
  static load(file: string): DeflateCache {
    const known = new Map<string, Buffer>();
    try {
      const bytes = readFileSync(file);
      const header = Buffer.from(HEADER);
      if (bytes.subarray(0, header.byteLength).equals(header)) {
        let at = header.byteLength;
        while (at + 36 <= bytes.byteLength) {
          const key = bytes.toString("base64", at, at + 32);
          const length = bytes.readUInt32LE(at + 32);
          at += 36;
          if (at + length > bytes.byteLength) break;
          known.set(key, bytes.subarray(at, at + length));
          at += length;
        }
      }
    } catch {
      // No cache yet (or unreadable): every file is deflated.
    }
    return new DeflateCache(known);
  }

  /** Deflates `data` at level 6, or returns the bytes deflating it gave before. */
  readonly deflate: Deflate = (data) => {
    const key = hash("sha256", data, "base64");
    let deflated = this.#used.get(key);
    if (deflated === undefined) {
      const known = this.#known.get(key);
      // The file is in the package's folder, which others may write (a shared checkout, a
      // repository): a cached stream is used only if it inflates to exactly these bytes.
      deflated = known !== undefined && inflatesTo(known, data) ? known : deflateLevel6(data);
    }
    this.#used.set(key, deflated);
    return deflated;
  };

  /** Stores the entries this run used at `file` (best effort: a cache that cannot be written is skipped). */
  save(file: string): void {
    const parts: Buffer[] = [Buffer.from(HEADER)];
    for (const [key, deflated] of this.#used) {
      const record = Buffer.alloc(36);
      record.write(key, 0, "base64");
      record.writeUInt32LE(deflated.byteLength, 32);
      parts.push(record, deflated);
    }
    try {
      mkdirSync(dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, Buffer.concat(parts));
      renameSync(temporary, file);
    } catch {
      // The next draft deflates again.
    }
  }
}

function inflatesTo(deflated: Buffer, data: Buffer): boolean {
  try {
    return inflateRawSync(deflated, { maxOutputLength: data.byteLength + 1 }).equals(data);
  } catch {
    return false;
  }
}
