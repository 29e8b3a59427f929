import { readdirSync, readFileSync } from "node:fs";
import { sha256 } from "@svc/app";

/** One numbered migration file of `server/src/core/db/migrations/`. */
export interface Migration {
  /** The number, from the file name's `NNN_`. */
  id: number;
  /** The file name without `.sql`, such as `001_users`. */
  name: string;
  sql: string;
  /** sha256 of the file; recorded when applied, so an edited migration is noticed. */
  contentHash: string;
}

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);

/**
 * The migrations in order of their numbers. Numbers are handed out per branch before the
 * branches merge (each issue is given its own), so a branch may hold 018 before 015 lands; a
 * number may therefore be skipped, but never repeated or out of order, and pendingMigrations
 * applies whatever the database lacks, a late-landing lower number included.
 */
export function readMigrations(dir: URL = MIGRATIONS_DIR): Migration[] {
  let previous = 0;
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((file): Migration => {
      const match = /^(\d{3})_[a-z0-9_]+\.sql$/.exec(file);
      const id = match ? Number(match[1]) : Number.NaN;
      if (!match || !(id > previous)) {
        throw new Error(`migration ${file} is misnamed: expected NNN_<name>.sql numbered above ${previous}`);
      }
      previous = id;
      const sql = readFileSync(new URL(file, dir), "utf8");
      return { id, name: file.slice(0, -4), sql, contentHash: sha256(sql) };
    });
  return migrations;
}
