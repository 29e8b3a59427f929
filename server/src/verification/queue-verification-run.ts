import { IdPrefix, type RunTrigger } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { newRunJobs } from "../core/jobs/enqueue-run.ts";
import { notifyJobsInserted } from "../core/jobs/wake-workers.ts";

/** One Submission artifact as the run records it, in the Contract's role order. */
export interface RunArtifact {
  role: string;
  artifact_id: string;
  content_hash: string;
  size_bytes: number;
}

export interface QueueRunInput {
  submissionId: string;
  problemRevisionId: string;
  verifierContractId: string;
  artifacts: RunArtifact[];
  trigger: RunTrigger;
  /** Who asked for a rerun or manual run; omitted for a Submission's own run. */
  requestedByUserId?: string | null;
}

/**
 * Creates a `queued` VerificationRun and enqueues its execution in the caller's transaction, so a
 * Submission and its run exist together or not at all, and a committed run is always picked up
 * by a worker (the job is keyed by the run id, so it is enqueued once).
 */
export async function queueVerificationRun(
  tx: postgres.TransactionSql,
  input: QueueRunInput,
): Promise<string> {
  const run = queuedRun(tx, input);
  // One round trip: the run, its job, and the workers' wake-up at the commit (a rare path: the
  // NOTIFY's commit-time lock costs nothing here).
  await tx`with ${run.ctes} select ${notifyJobsInserted(tx, 1)} from job`;
  return run.id;
}

/**
 * A new run's id and the common table expressions `run` (the run, inserted `queued`, returning
 * its id and created_at) and `job` (its execution enqueued, newRunJobs), for a statement that
 * also writes what the run belongs to, such as its Submission, in the same round trip. `job` is
 * a data-modifying CTE, so it runs whether or not the statement reads it. It wakes no worker: the
 * caller does, after its commit (wakeWorkers) or at it (notifyJobsInserted).
 */
export function queuedRun(
  tx: Sql,
  input: QueueRunInput,
): { id: string; ctes: postgres.PendingQuery<postgres.Row[]> } {
  const id = randomId(IdPrefix.verificationRun);
  const inputs = { artifacts: input.artifacts, summary_included: false };
  const ctes = tx`
    run as (
      insert into verification_runs
        (id, submission_id, problem_revision_id, verifier_contract_id, trigger, inputs, requested_by_user_id)
      values
        (${id}, ${input.submissionId}, ${input.problemRevisionId}, ${input.verifierContractId}, ${input.trigger},
         ${tx.json(inputs as unknown as postgres.JSONValue)}, ${input.requestedByUserId ?? null})
      returning id, created_at
    ),
    job as (${newRunJobs(tx, "run")})`;
  return { id, ctes };
}
