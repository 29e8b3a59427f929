import { Logger, runMigrations } from "graphile-worker";
import type { Pool } from "./connect-sql.ts";
import { type Migration, readMigrations } from "./read-migrations.ts";
import { workerConnection } from "./worker-connection.ts";

/**
 * Key of the advisory lock that serialises migrations across processes: every transaction that
 * reads or writes `svc_migrations` takes it first, so two servers starting at once apply each
 * migration exactly once and the second waits for the first.
 */
const MIGRATION_LOCK = 0x5356_4331;

/**
 * Applies the migrations not yet recorded in `svc_migrations`, in order, each in its own
 * transaction (a failing migration leaves no trace and stops the run). Refuses to run when a
 * recorded migration's file has changed since it was applied. Installs or upgrades
 * graphile-worker's own schema (`graphile_worker`), which our transactions enqueue jobs into, first.
 * Returns the names of our migrations it applied.
 */
export async function migrate(
  sql: Pool,
  migrations: readonly Migration[] = readMigrations(),
): Promise<string[]> {
  const applied: string[] = [];
  // graphile-worker's schema first: a process waiting for the schema (SVC_MIGRATE=wait) sees
  // our last migration recorded only once everything, the job queue included, is in place.
  await runMigrations({ ...workerConnection(sql, 1), logger: quietWorkerLogger });
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      create table if not exists svc_migrations (
        id integer primary key,
        name text not null,
        content_hash text not null,
        applied_at timestamptz not null default now()
      )`;
    const recorded = await tx<{ id: number; name: string; content_hash: string }[]>`
      select id, name, content_hash from svc_migrations order by id`;
    for (const row of recorded) {
      const file = migrations.find((m) => m.id === row.id);
      if (file && file.contentHash !== row.content_hash) {
        throw new Error(
          `migration ${file.name} was edited after it was applied; merged migrations never change: restore it and add a new numbered migration`,
        );
      }
    }
  });
  for (const migration of migrations) {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      const [done] = await tx`select 1 from svc_migrations where id = ${migration.id}`;
      if (done) return;
      await tx.unsafe(migration.sql);
      await tx`
        insert into svc_migrations (id, name, content_hash)
        values (${migration.id}, ${migration.name}, ${migration.contentHash})`;
      applied.push(migration.name);
    });
  }
  return applied;
}

/** graphile-worker logs its migrations at info; the service logs what it applied itself. */
const quietWorkerLogger = new Logger(() => () => {});
