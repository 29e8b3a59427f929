import type { Sql } from "../core/db/connect-sql.ts";

/** Implementations whose conformance has not run yet, and the age of the oldest (metrics). */
export async function pendingConformance(sql: Sql): Promise<{ count: number; oldest_age_s: number }> {
  const [row] = await sql<Array<{ count: number; oldest_age_s: number | null }>>`
    select count(*)::int as count, extract(epoch from now() - min(created_at))::float8 as oldest_age_s
    from verifier_implementations
    where conformance->>'status' = 'pending' and yanked_at is null`;
  return { count: row?.count ?? 0, oldest_age_s: Math.max(0, row?.oldest_age_s ?? 0) };
}
