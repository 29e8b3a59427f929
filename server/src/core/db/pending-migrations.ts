import type { Sql } from "./connect-sql.ts";
import { type Migration, readMigrations } from "./read-migrations.ts";

/**
 * The names of migrations this code knows and the database has not applied; empty when the
 * database is up to date. Throws when the database cannot be reached.
 */
export async function pendingMigrations(
  sql: Sql,
  migrations: readonly Migration[] = readMigrations(),
): Promise<string[]> {
  const [table] = await sql`select to_regclass('svc_migrations') as name`;
  if (!table?.name) return migrations.map((m) => m.name);
  const rows = await sql<{ id: number }[]>`select id from svc_migrations`;
  const applied = new Set(rows.map((row) => row.id));
  return migrations.filter((m) => !applied.has(m.id)).map((m) => m.name);
}
