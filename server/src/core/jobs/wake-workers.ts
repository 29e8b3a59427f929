import type postgres from "postgres";
import { commitWithoutFlush } from "../db/commit-without-flush.ts";
import type { Pool, Sql } from "../db/connect-sql.ts";

/** The channel graphile-worker's processes listen on; its payload's `count` is how many idle workers to nudge. */
const JOBS_INSERTED = "jobs:insert";

/** Per pool: the wake-ups asked for since the last NOTIFY was sent, and whether one is on its way. */
const pending = new WeakMap<Pool, { count: number; sending: boolean }>();

/**
 * Tells the worker processes that `count` jobs were committed (newRunJobs writes jobs without a
 * NOTIFY): one NOTIFY on its own, after the caller's commit, that does not wait for the disk. At
 * most one is on its way per pool, and the wake-ups asked for meanwhile go out together in the
 * next, so under load many Submissions share one NOTIFY (and its database-wide lock) while a lone
 * one is sent at once. Never throws: a wake-up that fails is the workers' next poll.
 */
export function wakeWorkers(sql: Pool, count = 1): void {
  let state = pending.get(sql);
  if (state === undefined) {
    state = { count: 0, sending: false };
    pending.set(sql, state);
  }
  state.count += count;
  if (!state.sending) void send(sql, state);
}

async function send(sql: Pool, state: { count: number; sending: boolean }): Promise<void> {
  state.sending = true;
  try {
    while (state.count > 0) {
      const count = state.count;
      state.count = 0;
      await sql`with no_flush as (${commitWithoutFlush(sql)})
        select ${notifyJobsInserted(sql, count)} from no_flush`;
    }
  } catch {
    state.count = 0;
  } finally {
    state.sending = false;
  }
}

/** The NOTIFY of `count` new jobs as an SQL expression, for a statement that wakes the workers at its own commit. */
export function notifyJobsInserted(sql: Sql, count: number): postgres.PendingQuery<postgres.Row[]> {
  return sql`pg_notify(${JOBS_INSERTED}, json_build_object('count', ${count}::int)::text)`;
}
