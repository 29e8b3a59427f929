#!/usr/bin/env node
// The `svc-server` command. TypeScript runs through Node's type stripping, so Node 22.18+ is
// needed: inside the repository, npm scripts and npx put the project's own Node 24 first on the PATH.
import module from "node:module";
import { privateCompileCacheDirectory } from "@svc/app/private-cache-directory";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `svc-server needs Node 22.18 or newer (this is ${process.version}); run it through npx or npm.\n`,
  );
  process.exit(2);
}
// `serve` and `worker` stop on SIGTERM. In a container this process is PID 1, which ignores a
// signal nothing handles, and loading the modules takes a second or more: a SIGTERM then would be
// lost and the container killed 20 s later. So one is kept from the start, and handed to the
// command once it listens (keep stays until then: removing the last listener drops a pending signal).
if (process.argv[2] === "serve" || process.argv[2] === "worker") {
  const early = [];
  const keep = (signal) => early.push(signal);
  process.on("SIGTERM", keep).on("SIGINT", keep);
  process.on("newListener", function handOver(event, listener) {
    if ((event !== "SIGTERM" && event !== "SIGINT") || listener === keep) return;
    process.off("newListener", handOver);
    // After the command has added its listeners for both signals (it adds them together).
    queueMicrotask(() => {
      process.off("SIGTERM", keep).off("SIGINT", keep);
      if (early.length > 0) process.emit(early[0], early[0]);
    });
  });
}
enableCompileCache();

/**
 * V8 keeps the compiled code of the modules (TypeScript already stripped) between runs: the
 * service starts faster, and so does each validation thread (about 240 -> 100 ms to load the
 * authoring core), which the first validation after an idle pause waits for. The cache is code
 * the service runs, so it lives where only this user can write, `$XDG_CACHE_HOME/svc-server/
 * compile-cache` (else `~/.cache/...`), made mode 0700 and used only while it and its parent are
 * this user's and writable by no one else. NODE_COMPILE_CACHE names another directory,
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node reads both itself). The directory is handed to
 * worker threads through NODE_COMPILE_CACHE, which they read when they start.
 */
function enableCompileCache() {
  const env = process.env;
  if (!module.enableCompileCache || env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = privateCompileCacheDirectory("svc-server");
  if (dir === undefined) return;
  const { directory } = module.enableCompileCache(dir);
  if (directory) env.NODE_COMPILE_CACHE = directory;
}

const { runServerCli } = await import("../src/edges/cli/main.ts");
process.exitCode = await runServerCli(process.argv.slice(2));
