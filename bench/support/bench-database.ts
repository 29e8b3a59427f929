import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import postgres from "postgres";
import { connectSql, type Pool } from "../../server/src/core/db/connect-sql.ts";
import { migrate } from "../../server/src/core/db/migrate.ts";
import { openDatabase } from "../../server/src/core/db/open-database.ts";

export interface BenchDatabase {
  sql: Pool;
  /** Its connection string, for the service processes a bench starts (bench/scale). */
  url: string;
  /** Where the service's files live for this run (blobs); removed by `close`. */
  dataDir: string;
  /** What the run used, for the printed header. */
  description: string;
  close(): Promise<void>;
}

const log = pino({ level: "silent" });

/**
 * A fresh, migrated database for one benchmark run: a new database on the `DATABASE_URL` server
 * (dropped afterwards), else the embedded PostgreSQL in a temporary data directory — the same
 * two ways the service itself runs.
 */
export async function benchDatabase(): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const name = `svc_bench_${Date.now().toString(36)}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const sql = connectSql(url.toString(), log, { max: 20 });
    await migrate(sql);
    return {
      sql,
      url: url.toString(),
      dataDir,
      description: `PostgreSQL at DATABASE_URL (database ${name})`,
      close: async () => {
        await sql.end({ timeout: 5 });
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const db = await openDatabase({ dataDir: join(dataDir, "pg"), log });
  await migrate(db.sql);
  return {
    sql: db.sql,
    url: db.url,
    dataDir,
    description: "embedded PostgreSQL",
    close: async () => {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
