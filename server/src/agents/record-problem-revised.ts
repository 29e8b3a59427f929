import { CriteriaChangeKind, EventKind, IdPrefix } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { appendEvent } from "../events/append-event.ts";

/** A revise as the publication made it. */
export interface ProblemRevised {
  problemId: string;
  fromRevisionId: string;
  toRevisionId: string;
  /** The reconciliation's revise reason, e.g. "statement_md changed". */
  reason: string;
  /** The task components that changed. */
  changed: readonly string[];
  at: Date;
}

/**
 * Writes a `problem_revised` criteria change, and its `criteria.changed` event, for every user
 * with an active Attempt on the Problem pinned to a revision other than the new one, naming
 * those Attempts, in the publication's transaction. Attempts keep the revision they pinned (spec
 * 9.1); the record tells their owners they now trail the current one. Returns how many were written.
 */
export async function recordProblemRevised(tx: Sql, revised: ProblemRevised): Promise<number> {
  const affected = await tx<
    { user_id: string; attempts: Array<{ attempt_id: string; problem_revision_id: string }> }[]
  >`
    select user_id, jsonb_agg(jsonb_build_object('attempt_id', id, 'problem_revision_id', problem_revision_id)
      order by started_at, id) as attempts
    from attempts
    where problem_id = ${revised.problemId} and status = 'active' and problem_revision_id <> ${revised.toRevisionId}
    group by user_id order by user_id`;
  for (const { user_id, attempts } of affected) {
    const id = randomId(IdPrefix.criteriaChange);
    await tx`
      insert into criteria_changes (id, user_id, kind, problem_id, from_revision_id, to_revision_id, reason, changed,
        affected_attempts, created_at)
      values (${id}, ${user_id}, ${CriteriaChangeKind.problemRevised}, ${revised.problemId}, ${revised.fromRevisionId},
        ${revised.toRevisionId}, ${revised.reason.slice(0, 4000)}, ${[...revised.changed]},
        ${tx.json(attempts as unknown as postgres.JSONValue)}, ${revised.at})`;
    await appendEvent(tx, {
      kind: EventKind.criteriaChanged,
      occurredAt: revised.at,
      audienceUserId: user_id,
      problemId: revised.problemId,
      data: {
        criteria_change_id: id,
        kind: CriteriaChangeKind.problemRevised,
        problem_id: revised.problemId,
        to_revision_id: revised.toRevisionId,
        affected_attempt_ids: attempts.map((a) => a.attempt_id),
      },
    });
  }
  return affected.length;
}
