import { deflateRawSync } from "node:zlib";
import type { Plan } from "@svc/schemas";
import type { FileTree } from "../tree/file-tree.ts";
import { type ShardFile, type ShardInput, type ShardLimits, ZIP_ARCHIVE_OVERHEAD } from "./plan-shards.ts";

/**
 * Bytes a ZIP entry adds besides its compressed data: the local header (30), the central record
 * (46), a ZIP64 data descriptor (24), the name twice, and room for extra fields.
 */
const ENTRY_OVERHEAD = 30 + 46 + 24 + 64;

/**
 * Measures a linted package for planShards: every file's size and an upper bound of what it adds
 * to a ZIP. Each file is deflated the way zipTree deflates it (zlib level 6, one shot), so
 * the bound is the real compressed size plus headers. A standalone problem package is one problem
 * holding every file; a campaign's problems are the plan's `dir`s, the rest is shared.
 *
 * With `limits`, a package whose files fit under `maxZippedBytes` even stored uncompressed (the
 * bound deflateBound gives, from sizes alone) is measured with that bound and nothing is read or
 * deflated: no shard of it can then reach the zipped ceiling, so planShards cuts the same shards
 * as with the deflated sizes. That is most packages; deflating all of them only to learn they fit
 * took 60 ms of a 300-problem `svc draft`.
 */
export async function measurePackage(
  tree: FileTree,
  plan: Plan,
  limits?: Pick<ShardLimits, "maxZippedBytes">,
): Promise<ShardInput> {
  const files = new Map<string, ShardFile>();
  for (const path of tree.paths()) files.set(path, boundFile(path, tree.size(path)!));
  let bound = 0;
  for (const file of files.values()) bound += file.zipped;
  if (limits === undefined || bound + ZIP_ARCHIVE_OVERHEAD > limits.maxZippedBytes) {
    for (const path of tree.paths()) files.set(path, await measureFile(tree, path));
  }
  if (plan.campaign === null) {
    const problem = plan.problems[0];
    return {
      shared: [],
      problems: problem ? [{ slug: problem.slug, dir: ".", files: [...files.values()] }] : [],
    };
  }
  const owner = new Map<string, string>();
  for (const problem of plan.problems) owner.set(`${problem.dir}/`, problem.slug);
  const shared: ShardFile[] = [];
  const byProblem = new Map<string, ShardFile[]>(plan.problems.map((p) => [p.slug, []]));
  for (const [path, file] of files) {
    const parts = path.split("/");
    const slug = parts.length > 2 ? owner.get(`${parts[0]}/${parts[1]}/`) : undefined;
    if (slug === undefined) shared.push(file);
    else byProblem.get(slug)!.push(file);
  }
  return {
    shared,
    problems: plan.problems.map((p) => ({ slug: p.slug, dir: p.dir, files: byProblem.get(p.slug)! })),
  };
}

/**
 * A file's bound from its size alone. zlib's deflateBound for raw deflate with the default window
 * and memory level is `size + size/4096 + size/16384 + size/2^25 + 7` (stored blocks cap the
 * worst case); an eighth more is far above it.
 */
function boundFile(path: string, size: number): ShardFile {
  return {
    path,
    size,
    zipped: size + Math.ceil(size / 8) + 16 + 2 * Buffer.byteLength(path) + ENTRY_OVERHEAD,
  };
}

async function measureFile(tree: FileTree, path: string): Promise<ShardFile> {
  const bytes = await tree.read(path);
  const compressed = deflateRawSync(bytes, { level: 6 }).byteLength;
  return {
    path,
    size: bytes.byteLength,
    zipped: compressed + 2 * Buffer.byteLength(path) + ENTRY_OVERHEAD,
  };
}
