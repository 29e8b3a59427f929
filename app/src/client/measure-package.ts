import { deflateRawSync } from "node:zlib";
import type { Plan } from "@svc/schemas";
import type { FileTree } from "../tree/file-tree.ts";
import type { ShardFile, ShardInput } from "./plan-shards.ts";

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
 */
export async function measurePackage(tree: FileTree, plan: Plan): Promise<ShardInput> {
  const files = new Map<string, ShardFile>();
  for (const path of tree.paths()) files.set(path, await measureFile(tree, path));
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

async function measureFile(tree: FileTree, path: string): Promise<ShardFile> {
  const bytes = await tree.read(path);
  const compressed = deflateRawSync(bytes, { level: 6 }).byteLength;
  return {
    path,
    size: bytes.byteLength,
    zipped: compressed + 2 * Buffer.byteLength(path) + ENTRY_OVERHEAD,
  };
}
