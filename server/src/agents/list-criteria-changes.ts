import { ServiceError } from "../core/errors/service-error.ts";
import { sequencePosition } from "../core/paging/sequence-cursor.ts";
import type { Services } from "../core/services/services.ts";
import { findProblem } from "../problems/find-problem.ts";
import { CRITERIA_CHANGE_SELECT, type CriteriaChangeRow, criteriaChangeView } from "./criteria-change.ts";

/** list_criteria_changes' input, validated. */
export interface ListCriteriaChangesInput {
  problem?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/**
 * list_criteria_changes: the caller's own criteria changes, oldest first, after `cursor` (the
 * last one's position, as next_cursor gave it); optionally of one Problem. Only the user a change
 * was written for ever reads it.
 */
export async function listCriteriaChanges(
  services: Services,
  userId: string,
  input: ListCriteriaChangesInput,
) {
  const { sql } = services;
  const after =
    input.cursor === undefined
      ? "0"
      : sequencePosition(
          input.cursor,
          "the next_cursor a previous list_criteria_changes returned; omit it to start from the first",
        );
  let problemId: string | null = null;
  if (input.problem !== undefined) {
    const problem = await findProblem(sql, input.problem);
    if (!problem) {
      throw new ServiceError("not_found", `no problem has the id or slug "${input.problem}"`, {
        problem: input.problem,
      });
    }
    problemId = problem.id;
  }
  const rows = await sql<CriteriaChangeRow[]>`
    ${sql.unsafe(CRITERIA_CHANGE_SELECT)}
    where cc.user_id = ${userId} and cc.seq > ${after}::bigint
      ${problemId ? sql`and cc.problem_id = ${problemId}` : sql``}
    order by cc.seq limit ${input.limit + 1}`;
  const page = rows.slice(0, input.limit);
  return {
    criteria_changes: page.map(criteriaChangeView),
    next_cursor: rows.length > input.limit ? page.at(-1)!.seq : null,
  };
}
