import { Readable } from "node:stream";
import { extract } from "tar-stream";
import type { EvidenceFile } from "./checker-job.ts";

/**
 * Reads a tar archive (as Docker's `getArchive` writes it: ustar, PAX and GNU long names, which
 * tar-stream decodes) into files and symlinks; directories and other entries are skipped.
 * `strip` leading path components are removed (getArchive of /output names entries `output/...`).
 * The archive is already bounded in size by the caller, so the entries are held in memory.
 */
export async function readTar(archive: Uint8Array, strip = 0): Promise<EvidenceFile[]> {
  const entries: EvidenceFile[] = [];
  for await (const entry of Readable.from([Buffer.from(archive)]).pipe(extract())) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const { name, type, linkname } = entry.header;
    const path = name
      .split("/")
      .filter((segment) => segment !== "" && segment !== ".")
      .slice(strip)
      .join("/");
    if (path === "") continue;
    if (type === "file" || type === "contiguous-file") {
      entries.push({ path, bytes: new Uint8Array(Buffer.concat(chunks)) });
    } else if (type === "symlink") {
      entries.push({ path, bytes: new Uint8Array(0), link_target: linkname ?? "" });
    }
  }
  return entries;
}
