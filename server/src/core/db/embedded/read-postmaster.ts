import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { processAlive } from "@svc/app";

/** A PostgreSQL server running on a cluster directory, as its `postmaster.pid` describes it. */
export interface Postmaster {
  pid: number;
  port: number;
  /** `starting`, `ready`, `stopping` or `standby` (PostgreSQL 10 and later write it). */
  status: string;
}

/**
 * The server running on `clusterDir`, or null when none is: no `postmaster.pid`, or one left
 * behind by a server that died (PostgreSQL itself clears such a file when it next starts).
 */
export async function readPostmaster(clusterDir: string): Promise<Postmaster | null> {
  let text: string;
  try {
    text = await readFile(join(clusterDir, "postmaster.pid"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  // Lines: pid, data directory, start time, port, socket directory, listen address, shared memory key, status.
  const lines = text.split("\n");
  const pid = Number(lines[0]);
  if (!processAlive(pid)) return null;
  return { pid, port: Number(lines[3]), status: (lines[7] ?? "").trim() };
}
