import { chown, open } from "node:fs/promises";
import type { PostgresBinaries } from "./postgres-binaries.ts";
import type { OsUser } from "./postgres-os-user.ts";
import { runTool } from "./run-tool.ts";

/**
 * Starts PostgreSQL on `clusterDir` through `pg_ctl start`, which detaches the server from this
 * process (it outlives it, so a later process can join it and the last one stops it) and waits
 * until it accepts connections. The server's own log is appended to `logFile`.
 */
export async function startPostmaster(options: {
  binaries: PostgresBinaries;
  clusterDir: string;
  logFile: string;
  owner: OsUser | null;
  port: number;
}): Promise<void> {
  const { binaries, clusterDir, logFile, owner, port } = options;
  await (await open(logFile, "a", 0o600)).close();
  if (owner) await chown(logFile, owner.uid, owner.gid);
  await runTool(
    binaries.pg_ctl,
    ["start", "--pgdata", clusterDir, "--log", logFile, "--wait", "--timeout", "60", "-o", `-p ${port}`],
    owner,
  );
}
