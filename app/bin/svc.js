#!/usr/bin/env node
// The `svc` command. It runs the bundle in app/dist (built by `npm install`, or `npm run build:cli`)
// while that is up to date with the sources it was built from, else the TypeScript sources
// through Node's type stripping, so Node 22.18+ is needed: inside the repository, npm scripts and
// npx put the project's own Node 24 first on the PATH.
import { privateCompileCacheDirectory } from "./private-cache-directory.js";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `svc needs Node 22.18 or newer (this is ${process.version}); run it through npx or npm.\n`,
  );
  process.exit(2);
}
// Node's own modules as they are, not through `import`: an ES-module import of node:fs builds a
// facade that reads every export, which loads fs's streams (3-5 ms of each start; issue 38).
const { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } =
  process.getBuiltinModule("node:fs");
const module = process.getBuiltinModule("node:module");
const { join } = process.getBuiltinModule("node:path");
const { fileURLToPath } = process.getBuiltinModule("node:url");
const vm = process.getBuiltinModule("node:vm");
// A command is short: V8's incremental marking started a collection of the whole heap near the end
// of `svc lint` and finished it after the output was written (about 10 ms of wall time and 15 ms of
// CPU on helper threads, for a heap about to be freed; issue 38). Without it, V8 collects the old
// generation when the heap reaches its limit, in one pause, so a long command still collects. Set
// before the bundle is compiled: V8's code cache records the flags it was made with.
process.getBuiltinModule("node:v8").setFlagsFromString("--no-incremental-marking");
const cacheDir = enableCompileCache();

/**
 * V8 keeps the compiled code of the modules between runs, which saves recompiling the bundle at
 * each start. The cache is code svc runs, so it lives where only this user can write:
 * `$XDG_CACHE_HOME/svc/compile-cache`, else `~/.cache/svc/compile-cache` (`%LOCALAPPDATA%` on
 * Windows), made mode 0700 and used only while it and its parent are this user's and writable by
 * no one else (Node's default, the shared OS temp directory, is not). NODE_COMPILE_CACHE names
 * another directory, NODE_DISABLE_COMPILE_CACHE=1 turns it off: Node reads both itself. Returns
 * the directory, where loadBundle keeps its code caches too (none when the cache is off).
 */
function enableCompileCache() {
  const env = process.env;
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  if (!module.enableCompileCache) return undefined;
  const dir = privateCompileCacheDirectory("svc");
  if (dir !== undefined) module.enableCompileCache(dir);
  return dir;
}

/**
 * The bundle's build record when app/dist holds a bundle built after the last change to every
 * source file it contains. A record without `bundle_sha256` is an older build's (ES-module chunks,
 * no svc.cjs): the sources run until the next `npm run build:cli`.
 */
function currentBundle() {
  try {
    const built = JSON.parse(readFileSync(new URL("../dist/inputs.json", import.meta.url), "utf8"));
    if (typeof built.bundle_sha256 !== "string") return null;
    // A path string per input, not a URL: 165 URLs parsed and converted back cost about 1 ms.
    const root = fileURLToPath(new URL("../../", import.meta.url));
    return built.inputs.every((path) => statSync(`${root}${path}`).mtimeMs < built.built_at) ? built : null;
  } catch {
    return null;
  }
}

/**
 * Runs the CommonJS bundle (app/dist/svc.cjs) as a `vm.Script` with V8's code cache of it. Node's
 * compile cache holds only the code compiled before a module ran; this cache is written after a
 * command ran, so it holds every function the command compiled (about 1.2 MB for `svc lint`), and
 * the next run of the same command compiles almost nothing. One cache per command and bundle, in
 * the compile cache's private directory; it is written when missing or when V8 refused it (another
 * Node, other flags), through a temporary file and a rename, so a concurrent run never reads half
 * of one. The name carries the checkout (a hash of the bundle's path) and the bundle's build hash,
 * modification time and size: V8 itself checks only the source's length.
 */
function loadBundle(built, command) {
  const file = fileURLToPath(new URL("../dist/svc.cjs", import.meta.url));
  // ASCII, as app/bin/build-cli.ts writes it: Latin-1 reads it without decoding.
  const source = readFileSync(file, "latin1");
  let cacheFile;
  let bundleKey;
  let cachedData;
  if (cacheDir !== undefined && typeof built.bundle_sha256 === "string") {
    const info = statSync(file);
    bundleKey = `svc-${pathKey(file)}-${built.bundle_sha256.slice(0, 16)}-${Math.trunc(info.mtimeMs)}-${info.size}`;
    const name = /^[a-z][a-z-]{0,30}$/.test(command ?? "") ? command : "other";
    cacheFile = join(cacheDir, `${bundleKey}-${process.version}-${process.arch}-${name}.v8cache`);
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // None yet: this run writes it.
    }
  }
  const script = new vm.Script(module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const exports = {};
  const bundle = { exports };
  script.runInThisContext()(exports, module.createRequire(file), bundle, file, join(file, ".."));
  const saveCache = () => {
    if (cacheFile === undefined || (cachedData !== undefined && !script.cachedDataRejected)) return;
    try {
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
      renameSync(temporary, cacheFile);
      // Caches of this checkout's earlier builds are never read again (another checkout's are
      // its own).
      const checkout = `svc-${pathKey(file)}-`;
      for (const old of readdirSync(cacheDir)) {
        if (old.startsWith(checkout) && old.endsWith(".v8cache") && !old.startsWith(`${bundleKey}-`)) {
          rmSync(join(cacheDir, old), { force: true });
        }
      }
    } catch {
      // No cache written (a full disk, say): the next run compiles again.
    }
  };
  return { runCli: bundle.exports.runCli, saveCache };
}

/** 32-bit FNV-1a of the bundle's path, in hex: which checkout a cache belongs to. */
function pathKey(path) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

const built = currentBundle();
if (built !== null) {
  const { runCli, saveCache } = loadBundle(built, process.argv[2]);
  process.exitCode = await runCli(process.argv.slice(2));
  saveCache();
} else {
  const { runCli } = await import("../src/cli/main.ts");
  process.exitCode = await runCli(process.argv.slice(2));
}
