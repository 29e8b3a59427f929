import type { Sql } from "../core/db/connect-sql.ts";

/**
 * What makes an implementation's conformance pending, for the statements that count or list them
 * (the metrics below, `svc-server stuck`): its fixtures have not run, and it is not yanked (a
 * yanked one will never run them, so it is not waiting).
 */
export const PENDING_CONFORMANCE = "conformance->>'status' = 'pending' and yanked_at is null";

/** Implementations whose conformance has not run yet, and the age of the oldest (metrics). */
export async function pendingConformance(sql: Sql): Promise<{ count: number; oldest_age_s: number }> {
  const [row] = await sql<Array<{ count: number; oldest_age_s: number | null }>>`
    select count(*)::int as count, extract(epoch from now() - min(created_at))::float8 as oldest_age_s
    from verifier_implementations
    where ${sql.unsafe(PENDING_CONFORMANCE)}`;
  return { count: row?.count ?? 0, oldest_age_s: Math.max(0, row?.oldest_age_s ?? 0) };
}
