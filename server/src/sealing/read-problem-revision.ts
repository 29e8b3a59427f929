import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { findProblemRevision } from "../problems/find-problem.ts";
import type { ProblemRevisionRow } from "../problems/problem-revision.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import { problemNotFound } from "../problems/read-problem.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";
import { revisionNotFound } from "./find-revision.ts";
import { withEffectiveSealing } from "./read-sealing.ts";

/**
 * readProblem and findRevision in one round trip: the Problem the viewer names and its revision
 * `number` (else its current one) with the effective sealing, refused as each of them refuses.
 * `also` is findProblemRevision's: a value of the same statement, returned only when the viewer
 * may read the Problem.
 */
export async function readProblemRevision<Also = never>(
  sql: Sql,
  viewer: Viewer | null,
  reference: string,
  number?: number,
  also?: postgres.Fragment,
): Promise<{ problem: ProblemRow; revision: ProblemRevisionRow; also: Also }> {
  const found = await findProblemRevision<Also>(sql, reference, number, also);
  if (!found || !canReadWork(viewer, found.problem)) throw problemNotFound(reference);
  const { problem, revision } = found;
  if (!revision) throw revisionNotFound(problem, number);
  return {
    problem,
    revision: await withEffectiveSealing(sql, revision, problem.owner_user_id),
    also: found.also,
  };
}
