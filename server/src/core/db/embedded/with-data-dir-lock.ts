import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processAlive } from "@svc/app";

const LOCK = "embedded-postgres.lock";

/**
 * Runs `fn` while holding `<data dir>/embedded-postgres.lock`, so that processes sharing a data
 * directory (the server and operator commands) decide one at a time whether to initialise,
 * start, join or stop its PostgreSQL. The lock is a file created exclusively and holding the
 * owner's pid; a lock whose owner died is taken over.
 */
export async function withDataDirLock<T>(
  dataDir: string,
  fn: () => Promise<T>,
  timeoutMs = 60_000,
): Promise<T> {
  const path = join(dataDir, LOCK);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(path, "wx", 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number((await readFile(path, "utf8").catch(() => "")).trim());
    // An empty file is a holder between creating and writing it: wait for it like a live one.
    if (holder > 0 && !processAlive(holder)) {
      await rm(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${path} (held by process ${holder || "unknown"})`);
    }
    await sleep(25);
  }
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}
