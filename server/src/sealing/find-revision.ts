import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { ProblemRevisionRow } from "../problems/problem-revision.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import { withEffectiveSealing } from "./read-sealing.ts";

/**
 * The revision `number` of a Problem the caller may already read, or its current one. not_found
 * when the number does not exist, or when the Problem has no revision yet. Its `sealing` is the
 * effective one, with the evaluation's release state merged in.
 */
export async function findRevision(
  sql: Sql,
  problem: ProblemRow,
  number?: number,
): Promise<ProblemRevisionRow> {
  const wanted = number ?? problem.current_revision_number;
  const [row] = await sql<ProblemRevisionRow[]>`
    select * from problem_revisions where problem_id = ${problem.id} and revision_number = ${wanted}`;
  if (!row) throw revisionNotFound(problem, number);
  return await withEffectiveSealing(sql, row, problem.owner_user_id);
}

/** not_found for a revision `number` the Problem lacks (or for a Problem with no revision yet). */
export function revisionNotFound(problem: ProblemRow, number: number | undefined): ServiceError {
  return new ServiceError(
    "not_found",
    number === undefined
      ? `problem ${problem.slug} has no revision yet`
      : `problem ${problem.slug} has no revision ${number}: its current revision is ${problem.current_revision_number}`,
    { problem: problem.id, revision: number ?? problem.current_revision_number },
  );
}
