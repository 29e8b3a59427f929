// A directory for caches of code a process will run (V8's compile and code caches), shared by the
// `svc` and `svc-server` commands. Plain JavaScript: both load it before any TypeScript runs.

/**
 * `<base>/<name>/compile-cache`, where base is `$XDG_CACHE_HOME`, else `~/.cache` (`%LOCALAPPDATA%`
 * on Windows), made mode 0700 and returned only while it and `<base>/<name>` are this user's and
 * writable by no one else: whoever can write a code cache can change what runs (Node's default, the
 * shared OS temp directory, is not such a place). Undefined when it cannot be made or is not private
 * (a read-only home in a container, say): the caller runs without a cache.
 */
export function privateCompileCacheDirectory(name) {
  try {
    // Node's own modules as they are (an ES-module import of node:fs loads its streams): svc.js.
    const { lstatSync, mkdirSync } = process.getBuiltinModule("node:fs");
    const { homedir } = process.getBuiltinModule("node:os");
    const { join } = process.getBuiltinModule("node:path");
    const env = process.env;
    const windows = process.platform === "win32";
    const base = windows
      ? env.LOCALAPPDATA || join(homedir(), "AppData", "Local")
      : env.XDG_CACHE_HOME || join(homedir(), ".cache");
    const dir = join(base, name, "compile-cache");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const isPrivate = (path) => {
      const info = lstatSync(path);
      return info.isDirectory() && (windows || (info.uid === process.getuid() && (info.mode & 0o022) === 0));
    };
    return isPrivate(join(base, name)) && isPrivate(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}
