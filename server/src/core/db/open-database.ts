import type { Logger } from "pino";
import { connectSql, type Pool } from "./connect-sql.ts";
import { attachEmbeddedPostgres } from "./embedded/attach-embedded-postgres.ts";

/** An open database: the pool, the URL it connects to, and how to let go of both. */
export interface Database {
  sql: Pool;
  /** Connection URL; it may carry a password, so it is never logged. */
  url: string;
  /** Ends the pool, then lets go of the embedded PostgreSQL (stopped when no process uses it). */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `DATABASE_URL`: any PostgreSQL. Without it, the embedded one in `dataDir`. */
  databaseUrl?: string | undefined;
  /** `SVC_DATA_DIR`, default `./.svc-data`. */
  dataDir?: string | undefined;
  log: Logger;
}

/**
 * Opens the service's database: `databaseUrl` when given, else the embedded PostgreSQL of
 * `dataDir`, initialised on first use, started when no other process runs it and joined when
 * one does (see attachEmbeddedPostgres). Migrations are not applied here: see `migrate`.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const { databaseUrl, dataDir = ".svc-data", log } = options;
  if (databaseUrl) {
    const sql = connectSql(databaseUrl, log);
    return { sql, url: databaseUrl, close: once(() => sql.end({ timeout: 5 })) };
  }
  const embedded = await attachEmbeddedPostgres({ dataDir, log });
  const sql = connectSql(embedded.url, log);
  return {
    sql,
    url: embedded.url,
    close: once(async () => {
      try {
        await sql.end({ timeout: 5 });
      } finally {
        await embedded.release();
      }
    }),
  };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}
