import { CriteriaChangeKind, EventKind, IdPrefix } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { appendEvent } from "../events/append-event.ts";

/**
 * Writes a `run_revoked` criteria change, and its `criteria.changed` event, for the owner of a
 * VerificationRun that was just revoked, in the revocation's transaction: the verdict their
 * Attempt counted on no longer stands. `reason` is the revocation's reason.
 */
export async function recordRunRevoked(tx: Sql, runId: string, reason: string, at: Date): Promise<void> {
  const [run] = await tx<
    { user_id: string; attempt_id: string; problem_id: string; problem_revision_id: string }[]
  >`
    select s.user_id, s.attempt_id, s.problem_id, r.problem_revision_id
    from verification_runs r join submissions s on s.id = r.submission_id where r.id = ${runId}`;
  if (!run) return;
  const id = randomId(IdPrefix.criteriaChange);
  const affected = [{ attempt_id: run.attempt_id, problem_revision_id: run.problem_revision_id }];
  await tx`
    insert into criteria_changes (id, user_id, kind, problem_id, from_revision_id, to_revision_id, reason, changed,
      affected_attempts, created_at)
    values (${id}, ${run.user_id}, ${CriteriaChangeKind.runRevoked}, ${run.problem_id}, ${run.problem_revision_id},
      ${run.problem_revision_id}, ${reason.slice(0, 4000)}, ${["verification_run"]},
      ${tx.json(affected as unknown as postgres.JSONValue)}, ${at})`;
  await appendEvent(tx, {
    kind: EventKind.criteriaChanged,
    occurredAt: at,
    audienceUserId: run.user_id,
    problemId: run.problem_id,
    data: {
      criteria_change_id: id,
      kind: CriteriaChangeKind.runRevoked,
      problem_id: run.problem_id,
      verification_run_id: runId,
      affected_attempt_ids: [run.attempt_id],
    },
  });
}
