import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ResultKind } from "@svc/schemas";
import type { CheckerJob, CheckerLimits } from "./checker-job.ts";

/** `/input/manifest.json` (decisions.md, "Checker contract"); `path` is absolute inside the sandbox. */
export interface CheckerManifest {
  stage_key: string;
  result_kind: ResultKind;
  artifacts: ManifestFile<"role">[];
  reference: ManifestFile<"key">[];
  limits: CheckerLimits & { network: "none" };
}

export type ManifestFile<K extends string> = { [P in K]: string } & {
  filename: string;
  path: string;
  content_hash: string;
  size_bytes: number;
  media_type: string;
};

/** A role, slot key or filename that is one plain path component. */
const SAFE_NAME = /^(?!\.\.?$)[^/\0]{1,255}$/;

/** The manifest a job's checker reads at /input/manifest.json. */
export function buildManifest(job: CheckerJob): CheckerManifest {
  for (const file of [...job.artifacts, ...job.reference]) {
    if (!SAFE_NAME.test(file.name) || !SAFE_NAME.test(file.filename)) {
      throw new Error(
        `input "${file.name}/${file.filename}" is not a plain name; it cannot be mounted under /input`,
      );
    }
  }
  return {
    stage_key: job.stage_key,
    result_kind: job.result_kind,
    artifacts: job.artifacts.map((f) => ({
      role: f.name,
      filename: f.filename,
      path: `/input/artifacts/${f.name}/${f.filename}`,
      content_hash: f.content_hash,
      size_bytes: f.size_bytes,
      media_type: f.media_type,
    })),
    reference: job.reference.map((f) => ({
      key: f.name,
      filename: f.filename,
      path: `/input/reference/${f.name}/${f.filename}`,
      content_hash: f.content_hash,
      size_bytes: f.size_bytes,
      media_type: f.media_type,
    })),
    limits: { ...job.implementation.limits, network: "none" },
  };
}

/**
 * Writes the `/input` tree of a job into `dir` on the host: manifest.json, artifacts/<role>/<file>,
 * reference/<key>/<file> and, for a script checker, checker/<filename>. Everything is world-readable
 * (directories 0755, files 0444) because the sandbox runs as an unprivileged uid, and it is mounted
 * read-only, so the modes only matter for reading.
 */
export async function layOutInput(job: CheckerJob, dir: string): Promise<CheckerManifest> {
  const manifest = buildManifest(job);
  const program = job.implementation.program;
  if (program !== null && !SAFE_NAME.test(program.filename))
    throw new Error(`checker filename "${program.filename}" is not a plain name`);
  const files: Array<[string[], Uint8Array | string]> = [
    [["manifest.json"], `${JSON.stringify(manifest, null, 2)}\n`],
    ...job.artifacts.map((f): [string[], Uint8Array] => [["artifacts", f.name, f.filename], f.bytes]),
    ...job.reference.map((f): [string[], Uint8Array] => [["reference", f.name, f.filename], f.bytes]),
    ...(program !== null ? [[["checker", program.filename], program.bytes] as [string[], Uint8Array]] : []),
  ];
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  // The folders first, then every file at once: each file system call is a round trip to
  // libuv's thread pool, and a trivial run's layout was a dozen of them in a row.
  const folders = new Set(["artifacts", "reference", ...files.map(([path]) => join(...path.slice(0, -1)))]);
  folders.delete(".");
  await Promise.all([...folders].map((folder) => mkdir(join(dir, folder), { recursive: true, mode: 0o755 })));
  await Promise.all(files.map(([path, bytes]) => writeFile(join(dir, ...path), bytes, { mode: 0o444 })));
  return manifest;
}
