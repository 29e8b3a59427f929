#!/usr/bin/env node
// The `svc` command. It runs the bundle in app/dist (built by `npm install`, or `npm run build:cli`)
// while that is up to date with the sources it was built from, else the TypeScript sources
// through Node's type stripping, so Node 22.18+ is needed: inside the repository, npm scripts and
// npx put the project's own Node 24 first on the PATH.
import { lstatSync, mkdirSync, readFileSync, statSync } from "node:fs";
import module from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `svc needs Node 22.18 or newer (this is ${process.version}); run it through npx or npm.\n`,
  );
  process.exit(2);
}
enableCompileCache();

/**
 * V8 keeps the compiled code of the modules between runs, which saves recompiling the bundle at
 * each start. The cache is code svc runs, so it lives where only this user can write:
 * `$XDG_CACHE_HOME/svc/compile-cache`, else `~/.cache/svc/compile-cache` (`%LOCALAPPDATA%` on
 * Windows), made mode 0700 and used only while it and its parent are this user's and writable by
 * no one else (Node's default, the shared OS temp directory, is not). NODE_COMPILE_CACHE names
 * another directory, NODE_DISABLE_COMPILE_CACHE=1 turns it off: Node reads both itself.
 */
function enableCompileCache() {
  const env = process.env;
  if (!module.enableCompileCache || env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const windows = process.platform === "win32";
    const base = windows
      ? env.LOCALAPPDATA || join(homedir(), "AppData", "Local")
      : env.XDG_CACHE_HOME || join(homedir(), ".cache");
    const dir = join(base, "svc", "compile-cache");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const private_ = (path) => {
      const info = lstatSync(path);
      return info.isDirectory() && (windows || (info.uid === process.getuid() && (info.mode & 0o022) === 0));
    };
    if (private_(join(base, "svc")) && private_(dir)) module.enableCompileCache(dir);
  } catch {
    // No cache (a read-only home, say): svc runs all the same, compiling its code at each start.
  }
}

/** Whether app/dist holds a bundle built after the last change to every source file it contains. */
function bundleIsCurrent() {
  try {
    const { built_at, inputs } = JSON.parse(
      readFileSync(new URL("../dist/inputs.json", import.meta.url), "utf8"),
    );
    const root = new URL("../../", import.meta.url);
    return inputs.every((path) => statSync(new URL(path, root)).mtimeMs < built_at);
  } catch {
    return false;
  }
}

const { runCli } = bundleIsCurrent() ? await import("../dist/svc.js") : await import("../src/cli/main.ts");
process.exitCode = await runCli(process.argv.slice(2));
