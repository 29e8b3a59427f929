import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { revisionNotFound } from "../sealing/find-revision.ts";
import { withEffectiveSealing } from "../sealing/read-sealing.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";
import { findProblem, findProblemRevision } from "./find-problem.ts";
import type { ProblemRevisionRow } from "./problem-revision.ts";
import type { ProblemRow } from "./problem-row.ts";

/**
 * The Problem the viewer names, when they may read it. Unknown and invisible are the same
 * not_found, so a private Problem's existence never leaks.
 */
export async function readProblem(sql: Sql, viewer: Viewer | null, reference: string): Promise<ProblemRow> {
  const row = await findProblem(sql, reference);
  if (!row || !canReadWork(viewer, row)) throw problemNotFound(reference);
  return row;
}

/**
 * readProblem and its revision `number` (else its current one) with the effective sealing, read
 * in one round trip (findRevision's refusals when the revision does not exist).
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

/** Unknown and invisible are the same not_found, so a private Problem's existence never leaks. */
function problemNotFound(reference: string): ServiceError {
  return new ServiceError("not_found", `no problem has the id or slug "${reference}"`, {
    problem: reference,
  });
}
