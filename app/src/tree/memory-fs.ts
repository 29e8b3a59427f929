/**
 * An in-memory file system with the promise API isomorphic-git needs (`fs.promises` with readFile,
 * writeFile, unlink, readdir, mkdir, rmdir, stat, lstat; links are refused). A fetched commit lives here only as Git
 * objects: nothing is written to disk and no working copy is ever checked out.
 */
export interface MemoryFs {
  promises: {
    readFile(path: string, options?: { encoding?: string } | string): Promise<Uint8Array | string>;
    writeFile(path: string, data: Uint8Array | string, options?: unknown): Promise<void>;
    unlink(path: string): Promise<void>;
    readdir(path: string): Promise<string[]>;
    mkdir(path: string, options?: unknown): Promise<void>;
    rmdir(path: string, options?: unknown): Promise<void>;
    rm(path: string, options?: unknown): Promise<void>;
    stat(path: string): Promise<MemoryStats>;
    lstat(path: string): Promise<MemoryStats>;
    readlink(path: string): Promise<string>;
    symlink(target: string, path: string): Promise<void>;
  };
}

export interface MemoryStats {
  type: "file" | "dir";
  mode: number;
  size: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  uid: number;
  gid: number;
  dev: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** Creates an empty in-memory file system whose root `/` exists. */
export function createMemoryFs(): MemoryFs {
  const files = new Map<string, Uint8Array>();
  const dirs = new Set<string>(["/"]);
  const encoder = new TextEncoder();
  let inode = 0;
  const inodes = new Map<string, number>();

  const parentOf = (path: string) => {
    const cut = path.lastIndexOf("/");
    return cut <= 0 ? "/" : path.slice(0, cut);
  };
  const requireParent = (path: string) => {
    const parent = parentOf(path);
    if (files.has(parent)) throw fsError("ENOTDIR", path);
    if (!dirs.has(parent)) throw fsError("ENOENT", path);
  };
  const stats = (path: string): MemoryStats => {
    const p = normalize(path);
    const isDir = dirs.has(p);
    const bytes = files.get(p);
    if (!isDir && bytes === undefined) throw fsError("ENOENT", path);
    if (!inodes.has(p)) inodes.set(p, ++inode);
    return {
      type: isDir ? "dir" : "file",
      mode: isDir ? 0o40755 : 0o100644,
      size: bytes?.byteLength ?? 0,
      ino: inodes.get(p)!,
      mtimeMs: 0,
      ctimeMs: 0,
      uid: 1,
      gid: 1,
      dev: 1,
      isFile: () => !isDir,
      isDirectory: () => isDir,
      isSymbolicLink: () => false,
    };
  };

  return {
    promises: {
      async readFile(path, options) {
        const p = normalize(path);
        if (dirs.has(p)) throw fsError("EISDIR", path);
        const bytes = files.get(p);
        if (bytes === undefined) throw fsError("ENOENT", path);
        const encoding = typeof options === "string" ? options : options?.encoding;
        return encoding ? new TextDecoder().decode(bytes) : bytes.slice();
      },
      async writeFile(path, data) {
        const p = normalize(path);
        requireParent(p);
        if (dirs.has(p)) throw fsError("EISDIR", path);
        files.set(p, typeof data === "string" ? encoder.encode(data) : data.slice());
      },
      async unlink(path) {
        const p = normalize(path);
        if (!files.delete(p)) throw fsError("ENOENT", path);
      },
      async readdir(path) {
        const p = normalize(path);
        if (files.has(p)) throw fsError("ENOTDIR", path);
        if (!dirs.has(p)) throw fsError("ENOENT", path);
        const prefix = p === "/" ? "/" : `${p}/`;
        const names = new Set<string>();
        for (const entry of [...dirs, ...files.keys()]) {
          if (entry !== p && entry.startsWith(prefix)) names.add(entry.slice(prefix.length).split("/")[0]!);
        }
        return [...names].sort();
      },
      async mkdir(path) {
        const p = normalize(path);
        if (dirs.has(p) || files.has(p)) throw fsError("EEXIST", path);
        requireParent(p);
        dirs.add(p);
      },
      async rmdir(path, options) {
        const p = normalize(path);
        if (!dirs.has(p)) throw fsError("ENOENT", path);
        const prefix = `${p}/`;
        const inside = [...dirs, ...files.keys()].filter((entry) => entry.startsWith(prefix));
        if (inside.length > 0 && !(options as { recursive?: boolean } | undefined)?.recursive) {
          throw fsError("ENOTEMPTY", path);
        }
        for (const entry of inside) {
          files.delete(entry);
          dirs.delete(entry);
        }
        if (p !== "/") dirs.delete(p);
      },
      async rm(path, options) {
        const p = normalize(path);
        if (dirs.has(p)) return this.rmdir(p, options);
        if (!files.delete(p) && !(options as { force?: boolean } | undefined)?.force) {
          throw fsError("ENOENT", path);
        }
      },
      stat: async (path) => stats(path),
      lstat: async (path) => stats(path),
      // Git objects never need links; isomorphic-git only binds these.
      readlink: async (path) => {
        throw fsError("EINVAL", path);
      },
      symlink: async (_target, path) => {
        throw fsError("EPERM", path);
      },
    },
  };
}

/** An absolute path without `.` segments, duplicate or trailing slashes. */
function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

function fsError(code: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${path}`), { code, path });
}
