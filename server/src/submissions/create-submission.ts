import { EntriesMode, IdPrefix, RunTrigger } from "@svc/schemas";
import type { ArtifactRow } from "../artifacts/artifact.ts";
import { findArtifact } from "../artifacts/find-artifact.ts";
import { readArtifact } from "../artifacts/read-artifact.ts";
import { AttemptAccess, readAttempt, requireActive } from "../attempts/read-attempt.ts";
import { pipelinedTransaction } from "../core/db/pipelined-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import { wakeWorkers } from "../core/jobs/wake-workers.ts";
import type { Services } from "../core/services/services.ts";
import { checkCutoff, quotaExhausted } from "../sealing/check-sealed-intake.ts";
import { recordEntry } from "../sealing/final-entry-events.ts";
import { lockQuota, readQuotaUsage } from "../sealing/read-quota-usage.ts";
import { withEffectiveSealing } from "../sealing/read-sealing.ts";
import type { SealingPolicy } from "../sealing/sealing-policy.ts";
import { submissionAllowance } from "../sealing/submission-allowance.ts";
import type { Caller } from "../users/caller.ts";
import { queuedRun } from "../verification/queue-verification-run.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { checkSubmissionArtifacts, requirementsUnmet } from "./check-submission-artifacts.ts";
import { createdSubmission } from "./read-submissions.ts";
import type { Submission } from "./submission.ts";
import { readContractTerms } from "./submission-requirements.ts";

export interface CreateSubmissionInput {
  attempt_id: string;
  artifacts: Array<{ role: string; artifact_id: string }>;
}

/**
 * create_submission (spec 4.1): binds Artifacts of the caller's active Attempt to the pinned
 * Contract's roles and, when the revision pins a Contract, queues its VerificationRun, all in one
 * transaction: the Submission and its `queued` run exist together or not at all. The Attempt row
 * is locked first, so concurrent calls on one Attempt take turns and none lands after end_attempt;
 * the named Artifacts are locked in id order, so none is withdrawn halfway. On a sealed revision
 * it also enforces the cutoff and the evaluation's rolling quota under a per-(user, evaluation)
 * advisory lock, and records the entry event of an independent evaluation.
 */
export async function createSubmission(
  services: Services,
  caller: Caller,
  input: CreateSubmissionInput,
): Promise<{ submission: Submission; verification_run_id: string | null }> {
  const { sql, clock } = services;
  const viewer = viewerOf(caller.principal);
  const created = await pipelinedTransaction(sql, async (tx, commitWith) => {
    // The Attempt (its Problem and its revision's facts with it) and the named Artifacts, each
    // locked, in one write with the transaction's BEGIN: the Attempt first, then the Artifacts in
    // id order. Checked below in that order, so the first refusal is the same as read one by one.
    const ids = [...new Set(input.artifacts.map((a) => a.artifact_id))].sort();
    const [{ attempt, problem, revision: stored }, ...artifactRows] = await Promise.all([
      readAttempt(tx, viewer, input.attempt_id, {
        access: AttemptAccess.own,
        lock: true,
        revision: true,
      }),
      ...ids.map((id) => findArtifact(tx, id, { lock: true })),
    ]);
    requireActive(attempt);
    if (problem.status !== "open") {
      throw new ServiceError(
        "problem_archived",
        `problem ${problem.slug} is archived and takes no new Submissions`,
        {
          problem_id: problem.id,
        },
      );
    }
    const revision = await withEffectiveSealing(tx, stored!, problem.owner_user_id);
    const sealing = revision.sealing as SealingPolicy | null;
    const evaluationId = sealing?.evaluation_id ?? null;
    if (evaluationId !== null) await lockQuota(tx, attempt.user_id, evaluationId);
    // Read after the locks, so creation times follow the order the locks impose.
    const now = clock();
    if (sealing !== null && evaluationId !== null) {
      checkCutoff(sealing, now);
      const usage = await readQuotaUsage(
        tx,
        attempt.user_id,
        evaluationId,
        problem.owner_user_id,
        sealing,
        now,
      );
      const allowance = submissionAllowance(sealing, evaluationId, usage);
      if (allowance.remaining === 0) throw quotaExhausted(allowance);
    }
    const artifacts = new Map<string, ArtifactRow>();
    for (const [i, id] of ids.entries()) {
      const index = input.artifacts.findIndex((a) => a.artifact_id === id);
      const field = `artifacts.${index}.artifact_id`;
      const found = artifactRows[i] as ArtifactRow | null;
      const artifact = await readArtifact(tx, viewer, id, { access: "own", field, problem, found });
      if (artifact.withdrawn_at !== null) {
        throw new ServiceError(
          "artifact_withdrawn",
          `artifact ${id} was withdrawn and cannot be submitted: upload it again`,
          {
            field,
            artifact_id: id,
          },
        );
      }
      if (artifact.attempt_id !== attempt.id) {
        throw new ServiceError(
          "invalid_input",
          `artifact ${id} belongs to attempt ${artifact.attempt_id}, not ${attempt.id}: bring it in with reuse_artifact first`,
          { field, artifact_id: id },
        );
      }
      artifacts.set(id, artifact);
    }
    const terms = await readContractTerms(tx, revision.verifier_contract_id);
    const check = checkSubmissionArtifacts(
      terms,
      input.artifacts.map((a) => ({ role: a.role, artifact: artifacts.get(a.artifact_id)! })),
    );
    if (!check.ok) throw requirementsUnmet(check.problems);
    const id = randomId(IdPrefix.submission);
    const run =
      terms === null
        ? null
        : queuedRun(tx, {
            submissionId: id,
            problemRevisionId: attempt.problem_revision_id,
            verifierContractId: terms.verifier_contract_id,
            artifacts: check.artifacts,
            trigger: RunTrigger.submission,
          });
    // One round trip: the Submission, and its run and the run's job when the revision pins a
    // Contract; with the COMMIT when no entry event follows.
    const entry = sealing?.entries === EntriesMode.independent && evaluationId !== null;
    const insert = tx<{ status: Submission["status"]; created_at: Date; run_created_at: Date | null }[]>`
      with submission as (
        insert into submissions (id, attempt_id, user_id, problem_id, problem_revision_id, artifacts, created_at)
        values (${id}, ${attempt.id}, ${attempt.user_id}, ${attempt.problem_id}, ${attempt.problem_revision_id},
          ${tx.json(check.artifacts as never)}, ${now})
        returning status, created_at
      )
      ${
        run === null
          ? tx`select status, created_at, null::timestamptz as run_created_at from submission`
          : tx`, ${run.ctes}
        select submission.status, submission.created_at, run.created_at as run_created_at from submission, run, job`
      }`;
    const [written] = entry ? await insert : await commitWith(insert);
    if (entry && evaluationId !== null) {
      await recordEntry(tx, {
        evaluationId,
        revisionId: revision.id,
        userId: attempt.user_id,
        submissionId: id,
        now,
      });
    }
    // What readSubmissions would read back now: answered without another round trip.
    const submission = createdSubmission(
      {
        id,
        attempt_id: attempt.id,
        user_id: attempt.user_id,
        problem_id: attempt.problem_id,
        problem_revision_id: attempt.problem_revision_id,
        artifacts: check.artifacts,
        status: written!.status,
        created_at: written!.created_at,
        withdrawn_at: null,
      },
      run === null ? null : { id: run.id, created_at: written!.run_created_at! },
    );
    return { submission, verification_run_id: run?.id ?? null };
  });
  // The run's job was written without a NOTIFY (newRunJobs): the workers hear of it now it committed.
  if (created.verification_run_id !== null) wakeWorkers(sql, 1);
  return created;
}
