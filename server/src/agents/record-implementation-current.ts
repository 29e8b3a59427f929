import { CriteriaChangeKind, EventKind, IdPrefix } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { appendEvent } from "../events/append-event.ts";

/** A stage's new current implementation, as conformance made it. */
export interface ImplementationCurrent {
  contractId: string;
  stageKey: string;
  implementationId: string;
  versionNumber: number;
  at: Date;
}

/**
 * Writes an `implementation_current` criteria change, and its `criteria.changed` event, per user
 * and Problem with active Attempts on revisions that pin the Contract, in the transaction that
 * made the implementation current: their next runs of that stage are checked by it (spec 9.3:
 * the Problem is not revised, so nothing else would tell them).
 */
export async function recordImplementationCurrent(tx: Sql, current: ImplementationCurrent): Promise<number> {
  const affected = await tx<
    {
      user_id: string;
      problem_id: string;
      attempts: Array<{ attempt_id: string; problem_revision_id: string }>;
    }[]
  >`
    select a.user_id, a.problem_id, jsonb_agg(jsonb_build_object('attempt_id', a.id,
      'problem_revision_id', a.problem_revision_id) order by a.started_at, a.id) as attempts
    from attempts a join problem_revisions pr on pr.id = a.problem_revision_id
    where pr.verifier_contract_id = ${current.contractId} and a.status = 'active'
    group by a.user_id, a.problem_id order by a.user_id, a.problem_id`;
  const reason = `stage "${current.stageKey}" is now checked by implementation version ${current.versionNumber} (${current.implementationId})`;
  for (const { user_id, problem_id, attempts } of affected) {
    const id = randomId(IdPrefix.criteriaChange);
    await tx`
      insert into criteria_changes (id, user_id, kind, problem_id, reason, changed, affected_attempts, created_at)
      values (${id}, ${user_id}, ${CriteriaChangeKind.implementationCurrent}, ${problem_id}, ${reason},
        ${[`stage:${current.stageKey}`]}, ${tx.json(attempts as unknown as postgres.JSONValue)}, ${current.at})`;
    await appendEvent(tx, {
      kind: EventKind.criteriaChanged,
      occurredAt: current.at,
      audienceUserId: user_id,
      problemId: problem_id,
      data: {
        criteria_change_id: id,
        kind: CriteriaChangeKind.implementationCurrent,
        problem_id,
        verifier_implementation_id: current.implementationId,
        affected_attempt_ids: attempts.map((a) => a.attempt_id),
      },
    });
  }
  return affected.length;
}
