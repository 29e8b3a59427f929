import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { resolve, sep } from "node:path";
import { comparePaths, sortPaths } from "./compare-paths.ts";
import { type FileTree, isIgnoredPath, TreeError } from "./file-tree.ts";
import { PathIndex } from "./path-index.ts";
import { unsafePathReason } from "./unsafe-path-reason.ts";

/**
 * Opens a package directory as a FileTree. The directory is walked once: regular files are
 * listed, other special files are left out, `.svc/` and `.git` are skipped, and a symbolic link
 * anywhere inside is refused (TreeError `symlink`), because an upload never follows links and a
 * package must be self-contained. The directory itself may be reached through a link. Bytes are
 * read lazily on `read()`; a file's size is its lstat size when asked before it is read, else the
 * length read, and stays what it was first given: the walk stats nothing, and lint, which judges
 * documents by size before reading them and reads every file, stats only those (a third fewer
 * system calls for a 300-problem campaign; issue 38).
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
  // Paths are joined by hand: the walk's names are single segments, never "." or "..", so
  // path.join's normalisation (a few microseconds a call, thousands of calls) changes nothing.
  const base = root.endsWith(sep) ? root : `${root}${sep}`;
  const listed: string[] = [];
  walk(base, "", listed);
  const paths = Object.freeze(sortPaths(listed));
  // Checked in sorted order so that the same directory always reports the same collision.
  const index = new PathIndex("file");
  for (const path of paths) index.add(path);
  const files = new Set(paths);
  const sizes = new Map<string, number>();
  return {
    paths: () => paths,
    size: (path) => sizes.get(path) ?? (files.has(path) ? statListed(base, path, sizes) : undefined),
    read: async (path) => {
      if (!files.has(path)) throw new TreeError("not_found", `"${path}" is not in the package`, path);
      const bytes = readListed(base, path);
      if (!sizes.has(path)) sizes.set(path, bytes.byteLength);
      return bytes;
    },
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

/** Adds the regular files under `folder` (relative, "" for the root) to `listed`, depth first. */
function walk(base: string, folder: string, listed: string[]): void {
  const entries = readdirSync(`${base}${folder}`, { withFileTypes: true });
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
      walk(base, path, listed);
    } else if (info.isFile()) {
      const reason = unsafePathReason(path);
      if (reason !== undefined)
        throw new TreeError("unsafe_path", `file "${path}" ${reason}; rename it`, path);
      listed.push(path);
    }
  }
}

/** The lstat size of a listed file not read yet, kept for the next ask. */
function statListed(base: string, path: string, sizes: Map<string, number>): number {
  const info = lstatSync(`${base}${path}`, { throwIfNoEntry: false });
  if (info === undefined) {
    throw new TreeError("not_found", `"${path}" was removed after the package was opened`, path);
  }
  sizes.set(path, info.size);
  return info.size;
}

function readListed(base: string, path: string): Uint8Array {
  try {
    // O_NOFOLLOW: a file swapped for a link after the walk is still not followed.
    const fd = openSync(`${base}${path}`, constants.O_RDONLY | constants.O_NOFOLLOW);
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
