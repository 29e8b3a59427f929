import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";

/** Why a run exists (spec 2.4). */
export const RunTrigger = { submission: "submission", rerun: "rerun", manual: "manual" } as const;
export type RunTrigger = (typeof RunTrigger)[keyof typeof RunTrigger];

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

/** The graphile-worker task that executes a run (server/src/worker). */
export const VERIFY_TASK = "verify_run";

/**
 * Creates a `queued` VerificationRun and enqueues its execution in the caller's transaction, so a
 * Submission and its run exist together or not at all, and a committed run is always picked up
 * by a worker (the job is keyed by the run id, so it is enqueued once).
 */
export async function queueVerificationRun(
  tx: postgres.TransactionSql,
  input: QueueRunInput,
): Promise<string> {
  const id = randomId("vrn");
  const inputs = { artifacts: input.artifacts, summary_included: false };
  await tx`
    insert into verification_runs
      (id, submission_id, problem_revision_id, verifier_contract_id, trigger, inputs, requested_by_user_id)
    values
      (${id}, ${input.submissionId}, ${input.problemRevisionId}, ${input.verifierContractId}, ${input.trigger},
       ${tx.json(inputs as unknown as postgres.JSONValue)}, ${input.requestedByUserId ?? null})`;
  await enqueueRun(tx, id);
  return id;
}

/**
 * Enqueues a run's execution under its job key (the run id): at most one waiting job per run, so
 * a run enqueued again (by the stalled-run sweep) is still executed once.
 */
export async function enqueueRun(sql: Sql, runId: string): Promise<void> {
  await sql`
    select graphile_worker.add_job(${VERIFY_TASK}, json_build_object('verification_run_id', ${runId}::text),
      max_attempts => 3, job_key => ${runId})`;
}
