import type { Logger } from "pino";
import type { Pool } from "../../core/db/connect-sql.ts";
import { migrate } from "../../core/db/migrate.ts";
import { waitForSchema } from "../../core/db/wait-for-schema.ts";
import type { ServerConfig } from "./server-config.ts";

/**
 * Brings `serve` and `worker` to a current schema as SVC_MIGRATE says: `auto` applies what is
 * pending (migrations are serialised by an advisory lock, so replicas starting together apply
 * each once); `wait` leaves it to `svc-server migrate` and waits.
 */
export async function readySchema(sql: Pool, config: ServerConfig, log: Logger): Promise<void> {
  if (config.migrate === "wait") {
    await waitForSchema(sql, log, { timeoutMs: config.schemaWaitMs });
    return;
  }
  const applied = await migrate(sql);
  if (applied.length > 0) log.info({ applied }, "applied migrations");
}
