import { pino } from "pino";
import postgres from "postgres";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { connectSql, type Pool } from "../../src/core/db/connect-sql.ts";
import { migrate } from "../../src/core/db/migrate.ts";
import { randomChars } from "../../src/core/ids/random-chars.ts";

/** A fresh database of the test server, for one test file. */
export interface TestDatabase {
  sql: Pool;
  url: string;
  name: string;
  /** Ends the pool and drops the database. */
  drop(): Promise<void>;
}

/** A logger that prints nothing, for code under test. */
export const silentLog = pino({ level: "silent" });

const serverUrl = inject("databaseUrl");

// The global setup already fails a CI run without a database; this makes a skip impossible
// there even if that changes.
if (!serverUrl && process.env.CI === "true") {
  throw new Error("CI=true but the run has no test PostgreSQL: the database suites must run, not skip");
}

/** `describe` when the run has a database; `describe.skip` on a newcomer's machine without one (never in CI). */
export const describeWithDatabase = serverUrl ? describe : describe.skip;

/** Creates `svc_test_<random>` on the test server, migrated unless `migrated` is false. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (!serverUrl) throw new Error("no test PostgreSQL: see server/test/support/global-setup.ts");
  const name = `svc_test_${randomChars("0123456789abcdefghijklmnopqrstuvwxyz", 12)}`;
  await onServer((admin) => admin.unsafe(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const sql = connectSql(url.toString(), silentLog);
  if (options.migrated !== false) await migrate(sql);
  return {
    sql,
    url: url.toString(),
    name,
    drop: async () => {
      await sql.end({ timeout: 5 });
      await onServer((admin) => admin.unsafe(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * A fresh migrated database for the enclosing file or describe block, created before its tests
 * and dropped after them. Read `.sql` inside tests and hooks, not at import time.
 */
export function useTestDatabase(options: { migrated?: boolean } = {}): {
  readonly sql: Pool;
  readonly url: string;
} {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(options);
  });
  afterAll(async () => {
    await db?.drop();
  });
  return {
    get sql() {
      if (!db) throw new Error("the test database exists only inside tests and hooks");
      return db.sql;
    },
    get url() {
      if (!db) throw new Error("the test database exists only inside tests and hooks");
      return db.url;
    },
  };
}

async function onServer(fn: (admin: postgres.Sql) => Promise<unknown>): Promise<void> {
  const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
  try {
    await fn(admin);
  } finally {
    await admin.end({ timeout: 5 });
  }
}
