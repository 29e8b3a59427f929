import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { Sql } from "postgres";

/** Serialises the App's migrations across replicas starting at once (distinct from the service's). */
const APP_MIGRATION_LOCK = 0x5356_4741;

const migrationsDir = new URL("../migrations/", import.meta.url);

/**
 * Applies the App's numbered migrations (`github-app/migrations/NNN_name.sql`) not yet recorded
 * in `svc_github_app.migrations`, each in its own transaction under an advisory lock, so any
 * number of replicas may start at once. The App keeps its tables in a schema of its own: it may
 * share the service's PostgreSQL or have its own. Refuses a recorded migration whose file
 * changed: merged migrations never change. Returns the names it applied.
 */
export async function migrateAppDatabase(sql: Sql): Promise<string[]> {
  const files = readdirSync(migrationsDir)
    .filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name))
    .sort();
  const applied: string[] = [];
  for (const name of files) {
    const text = readFileSync(new URL(name, migrationsDir), "utf8");
    const contentHash = createHash("sha256").update(text).digest("hex");
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${APP_MIGRATION_LOCK})`;
      await tx`create schema if not exists svc_github_app`;
      await tx`
        create table if not exists svc_github_app.migrations (
          name text primary key, content_hash text not null, applied_at timestamptz not null default now())`;
      const [recorded] = await tx<{ content_hash: string }[]>`
        select content_hash from svc_github_app.migrations where name = ${name}`;
      if (recorded) {
        if (recorded.content_hash !== contentHash) {
          throw new Error(
            `the App's migration ${name} was edited after it was applied: restore it and add a new one`,
          );
        }
        return;
      }
      await tx.unsafe(text);
      await tx`insert into svc_github_app.migrations (name, content_hash) values (${name}, ${contentHash})`;
      applied.push(name);
    });
  }
  return applied;
}
