import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import type { ReviewResponseInput } from "../core/services/review-response.ts";
import { ASSIGNMENT_COLUMNS, type ReviewAssignmentRow } from "./review-records.ts";

/**
 * Records a judgment that passed its rubric on a `claimed` assignment (a human's or an agent's):
 * the assignment becomes `submitted`, and its judgment is written once. Null when the assignment
 * was no longer claimed.
 */
export async function storeJudgment(
  tx: Sql,
  assignmentId: string,
  input: ReviewResponseInput,
  now: Date,
): Promise<ReviewAssignmentRow | null> {
  const json = (value: unknown) => tx.json(value as postgres.JSONValue);
  const [stored] = await tx<ReviewAssignmentRow[]>`
    update review_assignments
    set status = 'submitted', ended_at = ${now}, response = ${json(input.response)},
      rationale_md = ${input.rationale_md ?? null}, citations = ${json(input.citations ?? [])},
      confidence = ${input.confidence ?? null}, assistance = ${input.assistance ? json(input.assistance) : null}
    where id = ${assignmentId} and status = 'claimed'
    returning ${tx.unsafe(ASSIGNMENT_COLUMNS)}`;
  return stored ?? null;
}
