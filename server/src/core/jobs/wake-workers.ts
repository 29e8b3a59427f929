import type postgres from "postgres";
import { commitWithoutFlush } from "../db/commit-without-flush.ts";
import type { Pool, Sql } from "../db/connect-sql.ts";
import { JOBS_QUEUED } from "./worker-wakeups.ts";

/**
 * The least time between two NOTIFYs of one pool. Each NOTIFY wakes a worker process (the first,
 * or another when jobs wait: startWorkerWakeups), whose idle worker then asks for a job: one per Submission cost about 0.3 ms of CPU
 * per verdict end to end (bench:verify with and without). A Submission that comes within this
 * time of the last wake-up is told at its end: when the workers are busy they take it when they
 * finish anyway, and when one is idle it waits at most this long.
 */
export const WAKE_INTERVAL_MS = 10;

interface WakeState {
  /** Wake-ups asked for since the last NOTIFY was sent. */
  count: number;
  /** A NOTIFY is on its way or one is scheduled. */
  busy: boolean;
  /** When the last NOTIFY was sent (performance.now()). */
  sentAt: number;
}

const pending = new WeakMap<Pool, WakeState>();

/**
 * Tells the worker processes that `count` jobs were committed (newRunJobs writes jobs without a
 * NOTIFY): a NOTIFY on its own, after the caller's commit, that does not wait for the disk. A
 * lone Submission's goes out at once; under load at most one goes out per WAKE_INTERVAL_MS per
 * pool, for all the wake-ups asked for since the last. Never throws: a wake-up that fails is
 * the workers' next poll.
 */
export function wakeWorkers(sql: Pool, count = 1): void {
  let state = pending.get(sql);
  if (state === undefined) {
    state = { count: 0, busy: false, sentAt: Number.NEGATIVE_INFINITY };
    pending.set(sql, state);
  }
  state.count += count;
  if (!state.busy) schedule(sql, state);
}

function schedule(sql: Pool, state: WakeState): void {
  state.busy = true;
  const wait = state.sentAt + WAKE_INTERVAL_MS - performance.now();
  if (wait <= 0) void send(sql, state);
  else setTimeout(() => void send(sql, state), wait).unref();
}

async function send(sql: Pool, state: WakeState): Promise<void> {
  const count = state.count;
  state.count = 0;
  state.sentAt = performance.now();
  try {
    await sql`with no_flush as (${commitWithoutFlush(sql)})
      select ${notifyJobsInserted(sql, count)} from no_flush`;
  } catch {
    // The workers' poll finds the jobs.
  }
  state.busy = false;
  if (state.count > 0) schedule(sql, state);
}

/** The NOTIFY of `count` new jobs as an SQL expression, for a statement that wakes the workers at its own commit. */
export function notifyJobsInserted(sql: Sql, count: number): postgres.PendingQuery<postgres.Row[]> {
  return sql`pg_notify(${JOBS_QUEUED}, json_build_object('count', ${count}::int)::text)`;
}
