import { comparePaths } from "./compare-paths.ts";
import { type FileTree, TreeError } from "./file-tree.ts";

/**
 * A FileTree over files already in memory whose paths were already checked (by memoryTree or
 * openZipTree, possibly in another thread: the server's validation pool). Reads hand out copies,
 * so no reader can change what the next one sees.
 */
export function bytesTree(files: ReadonlyMap<string, Uint8Array>): FileTree {
  const paths = Object.freeze([...files.keys()].sort(comparePaths));
  return {
    paths: () => paths,
    size: (path) => files.get(path)?.byteLength,
    read: async (path) => {
      const bytes = files.get(path);
      if (bytes === undefined) throw new TreeError("not_found", `"${path}" is not in the package`, path);
      return bytes.slice();
    },
  };
}
