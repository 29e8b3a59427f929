import { lintPackage } from "../../plan/lint-package.ts";
import type { FileTree } from "../../tree/file-tree.ts";
import { subsetTree } from "../subset-tree.ts";

/**
 * The plan_hash a client reviewed for one shard: what its own lint computes for exactly the files
 * the shard sends. A package of one shard sends every file, so that is the package's own
 * plan_hash and nothing is linted again; a shard of several is linted on its own. A shard that
 * does not lint clean has no plan, and a placeholder no service plan equals stands for it.
 */
export async function reviewedPlanHash(
  tree: FileTree,
  shard: { paths: readonly string[] },
  shards: number,
  packagePlanHash: string,
  now?: Date,
): Promise<string> {
  if (shards === 1) return packagePlanHash;
  const lint = await lintPackage(subsetTree(tree, shard.paths), { now });
  return lint.plan_hash ?? "unplanned: the shard's files do not lint clean locally";
}
