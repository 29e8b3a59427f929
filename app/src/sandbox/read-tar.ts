import type { EvidenceFile } from "./checker-job.ts";

/**
 * Reads a tar archive (ustar, with PAX `path`/`linkpath` records and GNU long names, as Docker's
 * `getArchive` writes them) into files and symlinks; directories and other entries are skipped.
 * `strip` leading path components are removed (getArchive of /output names entries `output/...`).
 */
export function readTar(archive: Uint8Array, strip = 0): EvidenceFile[] {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const entries: EvidenceFile[] = [];
  let offset = 0;
  let pax: Record<string, string> = {};
  let longName: string | null = null;
  let longLink: string | null = null;
  while (offset + 512 <= buf.length) {
    const header = buf.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156] ?? 0x30);
    const body = buf.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      pax = { ...pax, ...parsePax(body) };
      continue;
    }
    if (type === "L" || type === "K") {
      const text = body.toString("utf8").replace(/\0+$/, "");
      if (type === "L") longName = text;
      else longLink = text;
      continue;
    }
    if (type === "g") continue;
    const prefix = cString(header.subarray(345, 500));
    const name =
      pax.path ??
      longName ??
      (prefix ? `${prefix}/${cString(header.subarray(0, 100))}` : cString(header.subarray(0, 100)));
    const link = pax.linkpath ?? longLink ?? cString(header.subarray(157, 257));
    pax = {};
    longName = null;
    longLink = null;
    const path = name
      .split("/")
      .filter((s) => s !== "" && s !== ".")
      .slice(strip)
      .join("/");
    if (path === "") continue;
    if (type === "0" || type === "\0" || type === "7") entries.push({ path, bytes: new Uint8Array(body) });
    else if (type === "2") entries.push({ path, bytes: new Uint8Array(0), link_target: link });
  }
  return entries;
}

function octal(field: Buffer): number {
  // Sizes past 8 GiB use base-256; /output is far smaller, so those are refused as corrupt.
  if ((field[0] ?? 0) & 0x80) throw new Error("tar entry too large");
  const text = cString(field).trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function cString(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString("utf8");
}

function parsePax(body: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space === -1) break;
    const length = Number.parseInt(body.subarray(at, space).toString("ascii"), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = body.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) records[record.slice(0, eq)] = record.slice(eq + 1);
    at += length;
  }
  return records;
}
