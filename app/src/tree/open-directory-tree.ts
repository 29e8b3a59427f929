import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { comparePaths, sortPaths } from "./compare-paths.ts";
import { type FileTree, isIgnoredPath, TreeError } from "./file-tree.ts";
import { PathIndex } from "./path-index.ts";
import { unsafePathReason } from "./unsafe-path-reason.ts";

/**
 * Opens a package directory as a FileTree. The directory is walked once: regular files are
 * listed with their lstat sizes, other special files are left out, `.svc/` and `.git` are
 * skipped, and a symbolic link anywhere inside is refused (TreeError `symlink`), because an
 * upload never follows links and a package must be self-contained. The directory itself may be
 * reached through a link. Bytes are read lazily on `read()`.
 *
 * The file system is used synchronously: a package is a few thousand small files at most, and
 * one thread-pool round trip per file made the walk and the reads several times slower than the
 * work itself (bench/lint). Servers open archives with openZipTree, never directories.
 *
 * Throws TreeError `not_found` when `dir` does not exist, `not_a_directory` when it is a file,
 * `unsafe_path` or `duplicate_entry` for names no archive could carry.
 */
export async function openDirectoryTree(dir: string): Promise<FileTree> {
  const root = resolve(dir);
  assertDirectory(root, dir);
  const sizes = new Map<string, number>();
  walk(root, "", sizes);
  const paths = Object.freeze(sortPaths([...sizes.keys()]));
  // Checked in sorted order so that the same directory always reports the same collision.
  const index = new PathIndex("file");
  for (const path of paths) index.add(path);
  return {
    paths: () => paths,
    size: (path) => sizes.get(path),
    read: async (path) => readListed(root, path, sizes),
  };
}

function assertDirectory(root: string, dir: string): void {
  try {
    if (statSync(root).isDirectory()) return;
  } catch (error) {
    if (hasCode(error, "ENOENT") || hasCode(error, "ENOTDIR")) {
      throw new TreeError("not_found", `package directory "${dir}" does not exist`);
    }
    throw error;
  }
  throw new TreeError(
    "not_a_directory",
    `"${dir}" is a file, not a directory; pass the package directory (archives open with openZipTree)`,
  );
}

/** Adds the regular files under `folder` (relative, "" for the root) to `sizes`, depth first. */
function walk(root: string, folder: string, sizes: Map<string, number>): void {
  const entries = readdirSync(join(root, folder), { withFileTypes: true });
  entries.sort((a, b) => comparePaths(a.name, b.name));
  for (const info of entries) {
    const name = info.name;
    const path = folder === "" ? name : `${folder}/${name}`;
    if (isIgnoredPath(path)) continue;
    if (info.isSymbolicLink()) {
      throw new TreeError(
        "symlink",
        `"${path}" is a symbolic link; uploads never follow links, so copy what it points to into the package`,
        path,
      );
    }
    if (info.isDirectory()) {
      walk(root, path, sizes);
    } else if (info.isFile()) {
      const reason = unsafePathReason(path);
      if (reason !== undefined)
        throw new TreeError("unsafe_path", `file "${path}" ${reason}; rename it`, path);
      sizes.set(path, lstatSync(join(root, path)).size);
    }
  }
}

function readListed(root: string, path: string, sizes: Map<string, number>): Uint8Array {
  if (!sizes.has(path)) throw new TreeError("not_found", `"${path}" is not in the package`, path);
  try {
    // O_NOFOLLOW: a file swapped for a link after the walk is still not followed.
    const fd = openSync(join(root, path), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (hasCode(error, "ELOOP")) {
      throw new TreeError("symlink", `"${path}" became a symbolic link after the package was opened`, path);
    }
    if (hasCode(error, "ENOENT")) {
      throw new TreeError("not_found", `"${path}" was removed after the package was opened`, path);
    }
    throw error;
  }
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
