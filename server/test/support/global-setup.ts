import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { attachEmbeddedPostgres } from "../../src/core/db/embedded/attach-embedded-postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server on which each test file creates its own database; null: none (local runs skip). */
    databaseUrl: string | null;
  }
}

/**
 * One PostgreSQL for the whole run: `DATABASE_URL` when set (CI sets it), else one embedded
 * server in a temporary directory, stopped at the end. Each test file creates its own database
 * on it (test-database.ts). With CI=true a missing database fails the run; it is never skipped.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.DATABASE_URL;
  if (given) {
    await checkReachable(given);
    project.provide("databaseUrl", given);
    return async () => {};
  }
  const dataDir = await mkdtemp(join(tmpdir(), "svc-test-pg-"));
  try {
    const embedded = await attachEmbeddedPostgres({ dataDir, log: pino({ level: "warn" }) });
    project.provide("databaseUrl", embedded.url);
    return async () => {
      await embedded.release();
      await rm(dataDir, { recursive: true, force: true });
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    if (process.env.CI === "true") throw error;
    console.warn(`\nNo PostgreSQL for the database tests, which are skipped: ${(error as Error).message}\n`);
    project.provide("databaseUrl", null);
    return async () => {};
  }
}

async function checkReachable(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await sql`select 1`;
  } catch (error) {
    throw new Error(`DATABASE_URL is set but PostgreSQL does not answer there: ${(error as Error).message}`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
