/** FileTree: one read-only view of a package, from a directory, a ZIP archive or memory. */
export { comparePaths } from "./compare-paths.ts";
export {
  type ArchiveLimits,
  type FileTree,
  isIgnoredPath,
  SERVER_ARCHIVE_LIMITS,
  TreeError,
  TreeErrorCode,
} from "./file-tree.ts";
export { memoryTree } from "./memory-tree.ts";
export { openDirectoryTree } from "./open-directory-tree.ts";
export { openZipTree } from "./open-zip-tree.ts";
export { zipTree } from "./zip-tree.ts";
