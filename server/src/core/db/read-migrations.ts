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

/** The migrations in order. Numbers must run 1, 2, 3... without gaps, so none is skipped silently. */
export function readMigrations(dir: URL = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((file, index): Migration => {
      const match = /^(\d{3})_[a-z0-9_]+\.sql$/.exec(file);
      if (!match || Number(match[1]) !== index + 1) {
        throw new Error(
          `migration ${file} is misnamed: expected ${String(index + 1).padStart(3, "0")}_<name>.sql`,
        );
      }
      const sql = readFileSync(new URL(file, dir), "utf8");
      return { id: index + 1, name: file.slice(0, -4), sql, contentHash: sha256(sql) };
    });
  return migrations;
}
