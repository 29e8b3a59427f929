import type { Sql } from "../core/db/connect-sql.ts";

/** Unfinished runs by status, and how long the oldest queued one has waited (metrics). */
export interface ActiveRunCounts {
  by_status: Array<{ status: string; count: number }>;
  oldest_queued_age_s: number;
}

/** Reads only unfinished runs, through the partial index of migration 005. */
export async function activeRunCounts(sql: Sql): Promise<ActiveRunCounts> {
  const rows = await sql<Array<{ status: string; count: number; oldest_queued_age_s: number | null }>>`
    select status, count(*)::int as count,
      extract(epoch from now() - min(created_at) filter (where status = 'queued'))::float8 as oldest_queued_age_s
    from verification_runs where status <> 'finished' group by status`;
  return {
    by_status: rows.map(({ status, count }) => ({ status, count })),
    oldest_queued_age_s: Math.max(0, ...rows.map((row) => row.oldest_queued_age_s ?? 0)),
  };
}
