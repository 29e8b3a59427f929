import type postgres from "postgres";
import type { Sql } from "../db/connect-sql.ts";
import { genericPlans } from "../db/generic-plans.ts";
import { currentTraceparent } from "../tracing/tracing.ts";
import { TaskName } from "./task-name.ts";

/**
 * Enqueues a VerificationRun's execution under its job key (the run id): at most one waiting job
 * per run, so a run enqueued again (by the stalled-run sweep, or a review process waking it) is
 * still executed once. It lives in core because both verification and reviews wake runs.
 */
export async function enqueueRun(sql: Sql, runId: string): Promise<void> {
  await sql`select ${addRunJob(sql, sql`${runId}::text`)}`;
}

/**
 * The `graphile_worker.add_job` call enqueueRun makes, for the run id `runId` (an SQL expression):
 * a statement that creates runs enqueues them in the same round trip. Its plans are generic
 * (genericPlans): every Submission pays for this call.
 */
export function addRunJob(
  sql: Sql,
  runId: postgres.PendingQuery<postgres.Row[]>,
): postgres.PendingQuery<postgres.Row[]> {
  // With tracing on, the job carries the enqueuing span's trace (W3C traceparent) to the worker.
  const traceparent = currentTraceparent();
  const payload =
    traceparent === null
      ? sql`json_build_object('verification_run_id', ${runId})`
      : sql`json_build_object('verification_run_id', ${runId}, 'traceparent', ${traceparent}::text)`;
  return sql`(select graphile_worker.add_job(${TaskName.verifyRun}, ${payload},
    max_attempts => 3, job_key => ${runId}) from (${genericPlans(sql)}) generic_plans)`;
}
