#!/usr/bin/env node
// The `svc-server` command. TypeScript runs through Node's type stripping, so Node 22.18+ is
// needed: inside the repository, npm scripts and npx put the project's own Node 24 first on the PATH.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `svc-server needs Node 22.18 or newer (this is ${process.version}); run it through npx or npm.\n`,
  );
  process.exit(2);
}
const { runServerCli } = await import("../src/edges/cli/main.ts");
process.exitCode = await runServerCli(process.argv.slice(2));
