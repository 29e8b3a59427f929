import type postgres from "postgres";
import type { Sql } from "../db/connect-sql.ts";
import { genericPlans } from "../db/generic-plans.ts";
import { currentTraceparent } from "../tracing/tracing.ts";
import { RUN_JOB_FLAG, TaskName } from "./task-name.ts";

/** How many times graphile-worker tries a run's job before verifyRunTask finishes the run `error`. */
const RUN_JOB_ATTEMPTS = 3;

/**
 * Enqueues a VerificationRun's execution under its job key (the run id): at most one waiting job
 * per run, so a run enqueued again (by the stalled-run sweep, or a review process waking it) is
 * still executed once. It lives in core because both verification and reviews wake runs.
 */
export async function enqueueRun(sql: Sql, runId: string): Promise<void> {
  await sql`select ${addRunJob(sql, sql`${runId}::text`)}`;
}

/**
 * The `graphile_worker.add_job` call enqueueRun makes, for the run id `runId` (an SQL expression).
 * Its plans are generic (genericPlans). For a run its own statement creates, newRunJobs costs less.
 */
export function addRunJob(
  sql: Sql,
  runId: postgres.PendingQuery<postgres.Row[]>,
): postgres.PendingQuery<postgres.Row[]> {
  return sql`(select graphile_worker.add_job(${TaskName.verifyRun}, ${runJobPayload(sql, runId)},
    max_attempts => ${RUN_JOB_ATTEMPTS}, job_key => ${runId}, flags => array[${RUN_JOB_FLAG}::text])
    from (${genericPlans(sql)}) generic_plans)`;
}

/**
 * The jobs of runs the same statement creates (`runs`: the name of its CTE returning the new runs'
 * `id`), written as `add_job` writes a keyed job (task, payload, attempts, key = the run id, the
 * run flag, run at once, no queue) but in one plain insert: every Submission pays for it, and `add_job` cost
 * about 0.25 ms of PostgreSQL per call (upserting the task and queue rows, clearing the key from
 * locked jobs, a PL/pgSQL call), four times this insert. A new run has no job yet, so there is no
 * key to clear or conflict on. It sends no NOTIFY: a NOTIFY takes a database-wide lock from the
 * commit until the commit is on disk, so every Submission's commit would wait for the one before
 * (no group commit). The caller wakes the workers after its commit (wakeWorkers) or, on a rare
 * path, in its transaction (notifyJobsInserted); a wake-up lost with a crash is the workers' poll.
 * The task row it names is written by `migrate`, so a run never lacks its job; new-run-jobs.test.ts
 * fails when a graphile-worker upgrade changes the table this writes.
 * Returns the jobs' `key` (the run ids).
 */
export function newRunJobs(sql: Sql, runs: string): postgres.PendingQuery<postgres.Row[]> {
  return sql`
    insert into graphile_worker._private_jobs (task_id, payload, max_attempts, key, flags)
    select task.id, ${runJobPayload(sql, sql`new_run.id`)}, ${RUN_JOB_ATTEMPTS}, new_run.id,
      jsonb_build_object(${RUN_JOB_FLAG}::text, true)
    from ${sql(runs)} new_run
    join graphile_worker._private_tasks task on task.identifier = ${TaskName.verifyRun}
    returning key`;
}

/** A run job's payload: the run id and, with tracing on, the enqueuing span's trace (W3C traceparent) for the worker. */
function runJobPayload(
  sql: Sql,
  runId: postgres.PendingQuery<postgres.Row[]>,
): postgres.PendingQuery<postgres.Row[]> {
  const traceparent = currentTraceparent();
  return traceparent === null
    ? sql`json_build_object('verification_run_id', ${runId})`
    : sql`json_build_object('verification_run_id', ${runId}, 'traceparent', ${traceparent}::text)`;
}
