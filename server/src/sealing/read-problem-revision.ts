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
 */
export async function readProblemRevision(
  sql: Sql,
  viewer: Viewer | null,
  reference: string,
  number?: number,
): Promise<{ problem: ProblemRow; revision: ProblemRevisionRow }> {
  const found = await findProblemRevision(sql, reference, number);
  if (!found || !canReadWork(viewer, found.problem)) throw problemNotFound(reference);
  const { problem, revision } = found;
  if (!revision) throw revisionNotFound(problem, number);
  return { problem, revision: await withEffectiveSealing(sql, revision, problem.owner_user_id) };
}
