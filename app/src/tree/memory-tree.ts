import { bytesTree } from "./bytes-tree.ts";
import { type FileTree, isIgnoredPath, TreeError } from "./file-tree.ts";
import { PathIndex } from "./path-index.ts";
import { unsafePathReason } from "./unsafe-path-reason.ts";

/**
 * A FileTree over files given in memory (strings are UTF-8 encoded), for tests and for callers
 * that assemble a package themselves. Paths obey the same rules as archive entries; ignored
 * paths (`.svc/`, `.git`) are dropped. Throws TreeError `unsafe_path` or `duplicate_entry`.
 */
export function memoryTree(files: Record<string, string | Uint8Array>): FileTree {
  const index = new PathIndex("path");
  const bytes = new Map<string, Uint8Array>();
  const encoder = new TextEncoder();
  for (const [path, content] of Object.entries(files)) {
    const reason = unsafePathReason(path);
    if (reason !== undefined) throw new TreeError("unsafe_path", `path "${path}" ${reason}`, path);
    if (isIgnoredPath(path)) continue;
    index.add(path);
    // Copy, so later changes to the caller's array do not reach the tree.
    bytes.set(path, typeof content === "string" ? encoder.encode(content) : content.slice());
  }
  return bytesTree(bytes);
}
