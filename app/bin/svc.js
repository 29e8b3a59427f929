#!/usr/bin/env node
// The `svc` command. It runs the bundle in app/dist (built by `npm install`, or `npm run build:cli`)
// while that is up to date with the sources it was built from, else the TypeScript sources
// through Node's type stripping, so Node 22.18+ is needed: inside the repository, npm scripts and
// npx put the project's own Node 24 first on the PATH.
import { readFileSync, statSync } from "node:fs";
import module from "node:module";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `svc needs Node 22.18 or newer (this is ${process.version}); run it through npx or npm.\n`,
  );
  process.exit(2);
}
// V8 keeps the compiled code of the modules between runs (in the OS temp directory).
module.enableCompileCache?.();

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
