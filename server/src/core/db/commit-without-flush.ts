import type postgres from "postgres";
import type { Pool } from "./connect-sql.ts";

/**
 * The body of a CTE that lets the one statement reading it commit without waiting for the disk:
 * `synchronous_commit` off for that statement's own transaction (`set_config(..., true)`), the
 * session keeps its setting. Only for bookkeeping that is safe to lose: a PostgreSQL crash may
 * drop such a commit (and every commit after it that did not wait), leaving the rows as if the
 * statement never ran; a commit that waits for the disk flushes everything before it, so a
 * durable later state never lacks it. It takes the pool, not a transaction: in a transaction the
 * setting would also cover the caller's commit. The statement must read the CTE, or it is never
 * run: `with no_flush as (${commitWithoutFlush(sql)}) update ... where ... and exists (select from no_flush)`.
 */
export function commitWithoutFlush(sql: Pool): postgres.PendingQuery<postgres.Row[]> {
  return sql`select set_config('synchronous_commit', 'off', true)`;
}
