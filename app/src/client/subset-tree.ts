import { comparePaths } from "../tree/compare-paths.ts";
import { type FileTree, TreeError } from "../tree/file-tree.ts";

/** A view of `tree` holding only `paths` (each must be listed by `tree`): one shard's files. */
export function subsetTree(tree: FileTree, paths: readonly string[]): FileTree {
  const keep = new Set(paths);
  for (const path of keep) {
    if (tree.size(path) === undefined)
      throw new TreeError("not_found", `"${path}" is not in the package`, path);
  }
  const listed = Object.freeze([...keep].sort(comparePaths));
  return {
    paths: () => listed,
    size: (path) => (keep.has(path) ? tree.size(path) : undefined),
    read: async (path) => {
      if (!keep.has(path)) throw new TreeError("not_found", `"${path}" is not in this shard`, path);
      return tree.read(path);
    },
  };
}
