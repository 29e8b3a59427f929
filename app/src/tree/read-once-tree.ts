import type { FileTree } from "./file-tree.ts";

/**
 * `tree` with each file read from its source once: later reads return the same bytes. For a
 * command that lints a package and then packs it (`svc draft`, `svc upload`): the archive holds
 * the very bytes lint checked, and 900 files are not opened and read a second time (issue 38).
 * The bytes stay in memory as long as the tree does (lint holds them all at once anyway); each
 * read hands out a copy, so no reader can change what the next one sees.
 */
export function readOnceTree(tree: FileTree): FileTree {
  const reads = new Map<string, Promise<Uint8Array>>();
  return {
    paths: () => tree.paths(),
    size: (path) => tree.size(path),
    read: (path) => {
      let read = reads.get(path);
      if (read === undefined) {
        read = tree.read(path);
        reads.set(path, read);
      }
      return read.then((bytes) => bytes.slice());
    },
  };
}
