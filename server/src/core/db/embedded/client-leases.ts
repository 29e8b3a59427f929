import { randomBytes } from "node:crypto";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { processAlive } from "@svc/app";

/**
 * Every process using a data directory's embedded PostgreSQL holds a lease: an empty file
 * `<data dir>/clients/<pid>-<random>`. The last process to let go stops the server, whoever
 * started it; leases of processes that died are ignored and removed. Leases are taken and
 * dropped only under the data directory lock.
 */
export async function takeLease(dataDir: string): Promise<string> {
  const dir = join(dataDir, "clients");
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${process.pid}-${randomBytes(6).toString("hex")}`);
  await writeFile(path, "");
  return path;
}

/** Removes a lease and returns how many leases of live processes remain. */
export async function dropLease(dataDir: string, lease: string): Promise<number> {
  await rm(lease, { force: true });
  const dir = join(dataDir, "clients");
  let live = 0;
  for (const name of await readdir(dir).catch(() => [])) {
    if (processAlive(Number(name.split("-")[0]))) live += 1;
    else await rm(join(dir, name), { force: true });
  }
  return live;
}
