import type { Sql } from "../core/db/connect-sql.ts";

/**
 * How many Submissions (not withdrawn) each of `userIds` made to one revision: the "entries"
 * column beside a leaderboard's best scores. Only for participants already on the board, whose
 * entries the reader may see.
 */
export async function countEntries(
  sql: Sql,
  revisionId: string,
  userIds: readonly string[],
): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await sql<{ user_id: string; entries: number }[]>`
    select user_id, count(*)::int as entries from submissions
    where problem_revision_id = ${revisionId} and status <> 'withdrawn' and user_id = any(${userIds as string[]})
    group by user_id`;
  return new Map(rows.map((row) => [row.user_id, row.entries]));
}
