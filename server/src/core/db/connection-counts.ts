import type { Sql } from "./connect-sql.ts";

/**
 * The service's connections to its database by pool and state (active, idle, idle in
 * transaction), from pg_stat_activity: every svc process of the deployment, since they share
 * application names (`svc`: connect-sql.ts; `svc-worker`: graphile-worker's, worker-connection.ts).
 * postgres.js does not expose its pool's use, and the server's view is the one that matters when
 * connections run out.
 */
export async function connectionCounts(
  sql: Sql,
): Promise<Array<{ pool: string; state: string; count: number }>> {
  return await sql<Array<{ pool: string; state: string; count: number }>>`
    select application_name as pool, coalesce(state, 'unknown') as state, count(*)::int as count
    from pg_stat_activity
    where datname = current_database() and application_name in ('svc', 'svc-worker')
    group by 1, 2`;
}
