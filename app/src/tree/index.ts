/** FileTree: one read-only view of a package, from a directory, a ZIP archive or memory. */
export { comparePaths } from "./compare-paths.ts";
export { type FetchGitCommitOptions, fetchGitCommit } from "./fetch-git-commit.ts";
export {
  type ArchiveLimits,
  type FileTree,
  isIgnoredPath,
  SERVER_ARCHIVE_LIMITS,
  TreeError,
} from "./file-tree.ts";
export { findPackages, PACKAGE_LIST_FILE, type PackageDiscovery } from "./find-packages.ts";
export { createMemoryFs, type MemoryFs } from "./memory-fs.ts";
export { memoryTree } from "./memory-tree.ts";
export { openDirectoryTree } from "./open-directory-tree.ts";
export { type GitFile, type GitSource, listGitFiles, openGitTree } from "./open-git-tree.ts";
export { openZipTree } from "./open-zip-tree.ts";
export { pointerToLine } from "./pointer-to-line.ts";
export { zipTree } from "./zip-tree.ts";
