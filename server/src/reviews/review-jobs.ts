import type { Sql } from "../core/db/connect-sql.ts";
import { TaskName } from "../core/jobs/task-name.ts";

/** The graphile-worker tasks of review processes; jobs name them, so they never change once shipped. */
/**
 * Schedules `advanceReviewProcess` at `runAt` under `key`, in the caller's transaction, so the
 * timer exists exactly when the hold or deadline it serves was committed. Scheduling again under
 * the same key moves the job (a renewed hold), so each hold and each deadline has one job.
 */
export async function scheduleReviewTimer(
  sql: Sql,
  processId: string,
  key: string,
  runAt: Date,
): Promise<void> {
  await sql`
    select graphile_worker.add_job(${TaskName.advanceReviewProcess}, json_build_object('review_process_id', ${processId}::text),
      run_at => ${runAt}, max_attempts => 5, job_key => ${key})`;
}

/** The timer key of a claim's hold. */
export function holdTimerKey(assignmentId: string): string {
  return `review_hold:${assignmentId}`;
}

/** The timer key of a review node's deadline. */
export function deadlineTimerKey(processId: string, nodeId: string): string {
  return `review_deadline:${processId}:${nodeId}`;
}

/** The job key of an agent assignment's invocation. */
export function agentJobKey(assignmentId: string): string {
  return `review_agent:${assignmentId}`;
}

/**
 * Enqueues the invocation of an agent assignment in the caller's transaction. A few attempts
 * cover a worker dying mid-call; the reply retries themselves are counted on the assignment.
 */
export async function enqueueAgentSeat(sql: Sql, assignmentId: string): Promise<void> {
  await sql`
    select graphile_worker.add_job(${TaskName.reviewAgentSeat}, json_build_object('assignment_id', ${assignmentId}::text),
      max_attempts => 3, job_key => ${agentJobKey(assignmentId)})`;
}
