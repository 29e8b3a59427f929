import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";

/** Joins SQL fragments with a fixed separator (such as `", "` or `" and "`); at least one fragment. */
export function joinFragments(
  sql: Sql,
  fragments: postgres.Fragment[],
  separator: string,
): postgres.Fragment {
  return fragments.reduce((joined, fragment) => sql`${joined}${sql.unsafe(separator)}${fragment}`);
}
