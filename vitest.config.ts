import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    // Hooks stop servers, clients and databases; on a loaded two-core machine a server's close
    // (keep-alive connections answered first, the MCP sessions ended) took over vitest's 10 s
    // default once in a full run (mcp-auth.test.ts). Each step of a teardown is bounded on its own
    // (server/test/support/bounded-teardown.ts: about 12 s at worst), so 30 s holds them all.
    hookTimeout: 30_000,
    pool: "forks",
    // A deployment runs script checkers only in the root of an image an operator bound (docs/sandbox.md);
    // the suite runs most of them on the host's python3 instead, the trial's opt-in, so a newcomer's
    // machine needs no image. The bound path has its own suites (runtime-image.test.ts, runtime-binding.test.ts).
    env: { SVC_BWRAP_HOST_INTERPRETER: process.env.SVC_BWRAP_HOST_INTERPRETER ?? "1" },
    // At least two files at a time, even on two cores: most of a file's time is spent waiting
    // (PostgreSQL, sandboxes, browsers, child services), so on a 2-core CI machine this runs the suite
    // in about two thirds of the time of vitest's default (cores - 1, there one file at a time).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // One temporary folder for the run, cleared at its end (what killed processes left mounted included);
    // one PostgreSQL for the run (DATABASE_URL, else an embedded one); each server test file gets its own database.
    // The spawned `svc` commands run the bundle (app/bin/svc.js), so it is rebuilt from the sources first.
    globalSetup: [
      "server/test/support/run-temp-dir.ts",
      "server/test/support/global-setup.ts",
      "app/test/support/build-cli-setup.ts",
    ],
  },
});
