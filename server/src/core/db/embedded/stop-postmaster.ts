import { setTimeout as sleep } from "node:timers/promises";
import { processAlive } from "@svc/app";
import type { PostgresBinaries } from "./postgres-binaries.ts";
import type { OsUser } from "./postgres-os-user.ts";
import { readPostmaster } from "./read-postmaster.ts";
import { runTool } from "./run-tool.ts";

/**
 * Stops the PostgreSQL running on `clusterDir`, if any, with a fast shutdown (open transactions
 * roll back, the data is written out cleanly) and waits until its process has gone: `pg_ctl`
 * returns once `postmaster.pid` is removed, a moment before the process exits.
 */
export async function stopPostmaster(options: {
  binaries: PostgresBinaries;
  clusterDir: string;
  owner: OsUser | null;
}): Promise<void> {
  const { binaries, clusterDir, owner } = options;
  const running = await readPostmaster(clusterDir);
  if (!running) return;
  await runTool(
    binaries.pg_ctl,
    ["stop", "--pgdata", clusterDir, "--mode", "fast", "--wait", "--timeout", "60"],
    owner,
  );
  for (let waited = 0; processAlive(running.pid) && waited < 5_000; waited += 10) await sleep(10);
}
