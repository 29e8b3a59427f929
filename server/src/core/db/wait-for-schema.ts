import type { Logger } from "pino";
import type { Sql } from "./connect-sql.ts";
import { pendingMigrations } from "./pending-migrations.ts";
import type { Migration } from "./read-migrations.ts";
import { readMigrations } from "./read-migrations.ts";

/** How often a waiting process asks again. */
const POLL_MS = 1_000;

/**
 * Waits until the database carries every migration this code knows and graphile-worker's schema,
 * for processes started with SVC_MIGRATE=wait while one `svc-server migrate` per deploy applies
 * them. Logs once what it waits for; throws after `timeoutMs` naming what is still missing. A
 * database that is unreachable counts as not ready yet (it may be starting too).
 */
export async function waitForSchema(
  sql: Sql,
  log: Logger,
  {
    timeoutMs,
    pollMs = POLL_MS,
    migrations = readMigrations(),
  }: {
    timeoutMs: number;
    pollMs?: number;
    migrations?: readonly Migration[];
  },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let told = false;
  for (;;) {
    const missing = await missingSchema(sql, migrations).catch((error: unknown) => [
      `a reachable database (${error instanceof Error ? error.message : String(error)})`,
    ]);
    if (missing.length === 0) return;
    if (!told) {
      log.info({ missing }, "waiting for svc-server migrate to bring the schema up to date");
      told = true;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `the database still lacks ${missing.join(", ")} after ${Math.round(timeoutMs / 1000)} s: run svc-server migrate once for this version, or start with SVC_MIGRATE=auto`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

async function missingSchema(sql: Sql, migrations: readonly Migration[]): Promise<string[]> {
  const missing = await pendingMigrations(sql, migrations);
  const [jobs] = await sql`select to_regclass('graphile_worker.migrations') as name`;
  if (!jobs?.name) missing.push("graphile-worker's schema");
  return missing;
}
