import type { Sql } from "../db/connect-sql.ts";
import { TaskName } from "./task-name.ts";

/**
 * Enqueues a VerificationRun's execution under its job key (the run id): at most one waiting job
 * per run, so a run enqueued again (by the stalled-run sweep, or a review process waking it) is
 * still executed once. It lives in core because both verification and reviews wake runs.
 */
export async function enqueueRun(sql: Sql, runId: string): Promise<void> {
  await sql`
    select graphile_worker.add_job(${TaskName.verifyRun}, json_build_object('verification_run_id', ${runId}::text),
      max_attempts => 3, job_key => ${runId})`;
}
