import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { ProblemRevisionRow } from "../problems/problem-revision.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canManageWork, canReadWork } from "../visibility/work-access.ts";
import { withEffectiveSealing } from "./read-sealing.ts";
import type { SealingPolicy } from "./sealing-policy.ts";

/** A sealed revision the viewer may read, with its effective sealing. */
export interface SealedRevision {
  problem: ProblemRow;
  revision: ProblemRevisionRow;
  sealing: SealingPolicy;
  evaluationId: string;
  /** The viewer is the Problem's owner or an administrator (checked live). */
  manager: boolean;
}

const REVISION_ID = idPattern(IdPrefix.problemRevision);

/**
 * The revision `revisionId` for the sealed evaluation tools: not_found when it does not exist or
 * the viewer may not read its Problem; `notSealed` decides the error when it has no sealing.
 */
export async function readSealedRevision(
  sql: Sql,
  viewer: Viewer,
  revisionId: string,
  notSealed: () => ServiceError,
): Promise<SealedRevision> {
  const [stored] = REVISION_ID.test(revisionId)
    ? await sql<ProblemRevisionRow[]>`select * from problem_revisions where id = ${revisionId}`
    : [];
  const problem = stored && (await findProblem(sql, stored.problem_id));
  if (!stored || !problem || !canReadWork(viewer, problem)) {
    throw new ServiceError("not_found", `no problem revision you can read has the id "${revisionId}"`, {
      field: "revision_id",
      revision_id: revisionId,
    });
  }
  const revision = await withEffectiveSealing(sql, stored, problem.owner_user_id);
  const sealing = revision.sealing as SealingPolicy | null;
  if (sealing === null || sealing.evaluation_id === null) throw notSealed();
  return {
    problem,
    revision,
    sealing,
    evaluationId: sealing.evaluation_id,
    manager: canManageWork(viewer, problem),
  };
}
