import type { Sql } from "../db/connect-sql.ts";

/** graphile-worker's jobs by task: waiting to run, held by a worker, out of attempts (metrics). */
export interface JobCounts {
  task: string;
  queued: number;
  locked: number;
  failed: number;
}

export async function jobCounts(sql: Sql): Promise<JobCounts[]> {
  return await sql<JobCounts[]>`
    select task_identifier as task,
      count(*) filter (where locked_at is null and attempts < max_attempts)::int as queued,
      count(*) filter (where locked_at is not null)::int as locked,
      count(*) filter (where locked_at is null and attempts >= max_attempts)::int as failed
    from graphile_worker.jobs group by task_identifier`;
}
