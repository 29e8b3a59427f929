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
const { runServerCli } = await import("../src/edges/cli/main.ts");
process.exitCode = await runServerCli(process.argv.slice(2));
