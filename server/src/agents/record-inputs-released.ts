import { CriteriaChangeKind, EventKind, IdPrefix } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { appendEvent } from "../events/append-event.ts";

/**
 * Writes an `inputs_released` criteria change, and its `criteria.changed` event, per user and
 * Problem with active Attempts on the revisions an early release unsealed, in the release's
 * transaction: the sealed inputs their work is judged on are public from now on. `reason` is the
 * release's reason. (A release reached by its scheduled date writes nothing: no transaction
 * happens then.)
 */
export async function recordInputsReleased(
  tx: Sql,
  released: { revisionIds: readonly string[]; reason: string; at: Date },
): Promise<number> {
  if (released.revisionIds.length === 0) return 0;
  const affected = await tx<
    {
      user_id: string;
      problem_id: string;
      attempts: Array<{ attempt_id: string; problem_revision_id: string }>;
    }[]
  >`
    select user_id, problem_id, jsonb_agg(jsonb_build_object('attempt_id', id, 'problem_revision_id', problem_revision_id)
      order by started_at, id) as attempts
    from attempts
    where problem_revision_id in ${tx(released.revisionIds as string[])} and status = 'active'
    group by user_id, problem_id order by user_id, problem_id`;
  for (const { user_id, problem_id, attempts } of affected) {
    const id = randomId(IdPrefix.criteriaChange);
    await tx`
      insert into criteria_changes (id, user_id, kind, problem_id, reason, changed, affected_attempts, created_at)
      values (${id}, ${user_id}, ${CriteriaChangeKind.inputsReleased}, ${problem_id}, ${released.reason.slice(0, 4000)},
        ${["sealed_inputs"]}, ${tx.json(attempts as unknown as postgres.JSONValue)}, ${released.at})`;
    await appendEvent(tx, {
      kind: EventKind.criteriaChanged,
      occurredAt: released.at,
      audienceUserId: user_id,
      problemId: problem_id,
      data: {
        criteria_change_id: id,
        kind: CriteriaChangeKind.inputsReleased,
        problem_id,
        affected_attempt_ids: attempts.map((a) => a.attempt_id),
      },
    });
  }
  return affected.length;
}
