import { constants } from "node:fs";
import { lstat, open, readdir, readlink } from "node:fs/promises";
import type { EvidenceFile, KeepEvidence } from "./checker-job.ts";
import { surrogateEscaped } from "./safe-text.ts";

/** What the service keeps of one run's /output: result.json and its evidence, at most this much. */
export const OUTPUT_CEILING_BYTES = 64 * 1024 * 1024;
/** And at most this many entries, however small. */
export const OUTPUT_MAX_ENTRIES = 10_000;
/** Folders deeper than this are not walked (their entries count as over the ceiling). */
const MAX_DEPTH = 32;

/** /output as the host reads it once the sandbox is gone. */
export interface OutputTree {
  /** result.json first, then every other regular file and symbolic link, paths relative to /output. */
  entries: EvidenceFile[];
  /** True when /output held more than the ceilings allow: the run is `inconclusive` (limit output). */
  overCeiling: boolean;
}

/**
 * Reads a finished run's /output from the host folder that held it, the way a hostile checker
 * cannot exploit: symbolic links are recorded as links and never followed, files are opened with
 * O_NOFOLLOW and O_NONBLOCK and kept only when they are regular files (a FIFO or a device is
 * skipped), names are read as bytes (a byte that is not UTF-8 becomes a lone surrogate
 * U+DC80..U+DCFF, which safe-text.ts escapes byte-exactly), and the whole is bounded by
 * OUTPUT_CEILING_BYTES and OUTPUT_MAX_ENTRIES. result.json is read first, so the verdict is never
 * lost to evidence; files are read one at a time.
 */
export async function readOutputDir(
  outputDir: string,
  options: { keepEvidence?: KeepEvidence | undefined } = {},
): Promise<OutputTree> {
  const entries: EvidenceFile[] = [];
  let budget = OUTPUT_CEILING_BYTES;
  let count = 0;
  let overCeiling = false;

  // Host paths are bytes: a name that is not UTF-8 is reached exactly as the checker wrote it.
  const readEntry = async (hostPath: Buffer, relative: string): Promise<"dir" | "kept" | "skipped"> => {
    const info = await lstat(hostPath).catch(() => null);
    if (!info) return "skipped";
    if (info.isDirectory()) return "dir";
    if (info.isSymbolicLink()) {
      const target = await readlink(hostPath, { encoding: "buffer" });
      entries.push({ path: relative, bytes: new Uint8Array(0), link_target: surrogateEscaped(target) });
      return "kept";
    }
    if (!info.isFile()) return "skipped";
    if (info.size > budget) {
      overCeiling = true;
      return "skipped";
    }
    const handle = await open(
      hostPath,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    ).catch(() => null);
    if (!handle) return "skipped";
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return "skipped";
      // Evidence streams to the caller's store file by file; result.json and evidence/summary.json
      // (small, and read to settle the outcome) are held.
      if (options.keepEvidence && relative.startsWith("evidence/") && relative !== "evidence/summary.json") {
        const size = Math.min(opened.size, budget);
        const kept = await options.keepEvidence(
          size === 0 ? emptySource() : handle.createReadStream({ start: 0, end: size - 1, autoClose: false }),
        );
        budget -= kept.size_bytes;
        entries.push({ path: relative, bytes: new Uint8Array(0), ...kept });
        return "kept";
      }
      const bytes = Buffer.alloc(Math.min(opened.size, budget));
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
      budget -= bytesRead;
      entries.push({ path: relative, bytes: new Uint8Array(bytes.subarray(0, bytesRead)) });
      return "kept";
    } finally {
      await handle.close();
    }
  };

  const root = Buffer.from(outputDir);
  await readEntry(childPath(root, Buffer.from("result.json")), "result.json");
  const pending: Array<{ host: Buffer; relative: string; depth: number }> = [
    { host: root, relative: "", depth: 0 },
  ];
  while (pending.length > 0 && !overCeiling) {
    const dir = pending.shift()!;
    const names = await readdir(dir.host, { encoding: "buffer" }).catch(() => [] as Buffer[]);
    names.sort(Buffer.compare);
    for (const name of names) {
      if (++count > OUTPUT_MAX_ENTRIES) {
        overCeiling = true;
        break;
      }
      const relative =
        dir.relative === "" ? surrogateEscaped(name) : `${dir.relative}/${surrogateEscaped(name)}`;
      if (relative === "result.json") continue;
      const host = childPath(dir.host, name);
      const kind = await readEntry(host, relative);
      if (kind === "dir") {
        if (dir.depth + 1 > MAX_DEPTH) overCeiling = true;
        else pending.push({ host, relative, depth: dir.depth + 1 });
      }
      if (overCeiling) break;
    }
  }
  return { entries, overCeiling };
}

/** `dir/name` as bytes (path.join takes only strings). */
function childPath(dir: Buffer, name: Buffer): Buffer {
  return Buffer.concat([dir, Buffer.from("/"), name]);
}

async function* emptySource(): AsyncIterable<Uint8Array> {}
