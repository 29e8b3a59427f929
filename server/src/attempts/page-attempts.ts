import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import { ATTEMPT_COLUMNS, type Attempt, type AttemptRow, toAttempt } from "./attempt.ts";

/**
 * One page of Attempts matching `filters`, newest first, keyset-paged on (started_at, id). The
 * cursor holds the last row's key as the database printed it (microseconds kept) and a
 * fingerprint of `parameters`, so a cursor replayed with other filters is refused.
 */
export async function pageAttempts(
  sql: Sql,
  filters: postgres.Fragment[],
  page: { limit: number; cursor?: string; parameters: Record<string, unknown> },
): Promise<{ attempts: Attempt[]; cursor: string | null }> {
  const fingerprint = cursorFingerprint(page.parameters);
  const conditions = [...filters];
  if (page.cursor !== undefined) {
    const { k } = decodeCursor(page.cursor, fingerprint, 2);
    conditions.push(sql`(a.started_at, a.id) < (${String(k[0])}::timestamptz, ${String(k[1])})`);
  }
  const where = conditions.reduce((all, next) => sql`${all} and ${next}`);
  const rows = await sql<Array<AttemptRow & { sort_at: string }>>`
    select ${sql.unsafe(ATTEMPT_COLUMNS)}, a.started_at::text as sort_at from attempts a
    where ${where}
    order by a.started_at desc, a.id desc
    limit ${page.limit + 1}`;
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    attempts: shown.map(toAttempt),
    cursor: more && last ? encodeCursor({ k: [last.sort_at, last.id], f: fingerprint }) : null,
  };
}
