import git from "isomorphic-git";
import { bytesTree } from "./bytes-tree.ts";
import { type ArchiveLimits, type FileTree, isIgnoredPath, TreeError } from "./file-tree.ts";
import { PathIndex } from "./path-index.ts";
import { unsafePathReason } from "./unsafe-path-reason.ts";

/**
 * A Git repository as isomorphic-git reads it: a file system (node's `fs`, or createMemoryFs for
 * a commit fetched into memory) and the git directory in it. Only objects are read; no working
 * copy is needed.
 */
export interface GitSource {
  fs: unknown;
  gitdir: string;
  /** isomorphic-git's object cache, shared by the reads of one source. */
  cache?: object;
}

/** A file of a commit: its path from the commit's root, its blob id and mode. */
export interface GitFile {
  path: string;
  oid: string;
  mode: string;
}

/** Git tree entry modes (git's own octal strings). */
const GitMode = {
  tree: "040000",
  symlink: "120000",
  submodule: "160000",
} as const;

/** The ceilings of a package read from Git: the server's archive ceilings. */
const GIT_TREE_LIMITS: ArchiveLimits = {
  maxFiles: 5000,
  maxZippedBytes: Number.POSITIVE_INFINITY,
  maxUnpackedBytes: 256 * 1024 * 1024,
};

/**
 * Lists the files of `commit` (an object id or a ref) under `root` ("" for the whole commit),
 * walking tree objects only: no blob is read. Paths are relative to `root`. Submodules (gitlinks)
 * are not files and are left out; symbolic links are listed with mode 120000 so callers decide.
 */
export async function listGitFiles(source: GitSource, commit: string, root = ""): Promise<GitFile[]> {
  const cache = source.cache ?? {};
  const fs = source.fs as never;
  const oid = await git.resolveRef({ fs, gitdir: source.gitdir, ref: commit }).catch(() => commit);
  let start: string;
  try {
    const top = await git.readTree({
      fs,
      gitdir: source.gitdir,
      oid,
      cache,
      ...(root ? { filepath: root } : {}),
    });
    start = top.oid;
  } catch (error) {
    throw new TreeError(
      "not_found",
      `${root ? `"${root}" is not a folder of` : "cannot read"} commit ${commit}: ${(error as Error).message}`,
      root || undefined,
    );
  }
  const files: GitFile[] = [];
  const walk = async (treeOid: string, prefix: string): Promise<void> => {
    const { tree } = await git.readTree({ fs, gitdir: source.gitdir, oid: treeOid, cache });
    for (const entry of tree) {
      const path = prefix === "" ? entry.path : `${prefix}/${entry.path}`;
      if (entry.mode === GitMode.tree) await walk(entry.oid, path);
      else if (entry.mode !== GitMode.submodule) files.push({ path, oid: entry.oid, mode: entry.mode });
    }
  };
  await walk(start, "");
  return files;
}

/**
 * Opens the folder `root` of a Git commit as a FileTree, without a working copy: tree objects are
 * walked and every blob under `root` is read once into memory (a FileTree reports sizes without
 * reading, and a blob's size is known only once it is inflated). The same rules as every other
 * source apply: unsafe or colliding names are refused, `.svc/` at the root and `.git` anywhere are
 * left out, and a symbolic link is refused (TreeError `symlink`) because a package must be
 * self-contained. `limits` bounds the files and bytes read (the server's ceilings by default).
 */
export async function openGitTree(
  source: GitSource,
  commit: string,
  options: { root?: string; limits?: Pick<ArchiveLimits, "maxFiles" | "maxUnpackedBytes"> } = {},
): Promise<FileTree> {
  const limits = options.limits ?? GIT_TREE_LIMITS;
  const cache = source.cache ?? {};
  const fs = source.fs as never;
  const listed = await listGitFiles({ ...source, cache }, commit, options.root ?? "");
  const index = new PathIndex("file");
  const files = new Map<string, Uint8Array>();
  let unpacked = 0;
  for (const file of listed) {
    const reason = unsafePathReason(file.path);
    if (reason !== undefined) throw new TreeError("unsafe_path", `file "${file.path}" ${reason}`, file.path);
    if (isIgnoredPath(file.path)) continue;
    if (file.mode === GitMode.symlink) {
      throw new TreeError(
        "symlink",
        `"${file.path}" is a symbolic link; a package must be self-contained, so commit the file it points to`,
        file.path,
      );
    }
    if (files.size === limits.maxFiles) {
      throw new TreeError(
        "too_many_files",
        `"${file.path}" is file ${limits.maxFiles + 1}; a package holds at most ${limits.maxFiles} files`,
        file.path,
      );
    }
    index.add(file.path);
    const { blob } = await git.readBlob({ fs, gitdir: source.gitdir, oid: file.oid, cache });
    unpacked += blob.byteLength;
    if (unpacked > limits.maxUnpackedBytes) {
      throw new TreeError(
        "unpacked_too_large",
        `the package holds more than ${limits.maxUnpackedBytes} bytes (passed at "${file.path}"); remove large files or split the package`,
        file.path,
      );
    }
    files.set(file.path, blob);
  }
  return bytesTree(files);
}
