import type { Logger } from "pino";
import type { Pool } from "../../core/db/connect-sql.ts";
import { migrate } from "../../core/db/migrate.ts";
import { openDatabase } from "../../core/db/open-database.ts";
import type { ServerConfig } from "./server-config.ts";

/**
 * Runs an operator command against the same database a running server uses (DATABASE_URL, else
 * the embedded one in SVC_DATA_DIR, joined when the server runs it), migrated first so a command
 * run on a fresh data directory works; closes it afterwards. `fn` also gets the names of the
 * migrations this run applied.
 */
export async function withMigratedDatabase<T>(
  config: ServerConfig,
  log: Logger,
  fn: (sql: Pool, applied: string[]) => Promise<T>,
): Promise<T> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
  try {
    const applied = await migrate(db.sql);
    return await fn(db.sql, applied);
  } finally {
    await db.close();
  }
}
