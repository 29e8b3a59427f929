import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canManageWork, canReadWork } from "../visibility/work-access.ts";
import { readSubmissions } from "./read-submissions.ts";
import type { Submission } from "./submission.ts";

const SUBMISSION_ID = idPattern(IdPrefix.submission);

/**
 * The Submission `id` names: the caller's own (`own`), or with `read` also anyone's on a Problem
 * the caller manages. Someone else's on a visible Problem is `not_yours`, else `not_found`.
 */
export async function readSubmission(
  sql: Sql,
  viewer: Viewer,
  id: string,
  access: "own" | "read",
  now: Date,
): Promise<Submission> {
  const [submission] = SUBMISSION_ID.test(id) ? await readSubmissions(sql, { id }, { viewer, now }) : [];
  const problem = submission && (await findProblem(sql, submission.problem_id));
  if (!submission || !problem || !canReadWork(viewer, problem)) {
    throw new ServiceError(
      "not_found",
      `no submission ${id} is visible to you: list_submissions lists yours`,
      {
        field: "submission_id",
        submission_id: id,
      },
    );
  }
  if (submission.user_id === viewer.userId) return submission;
  if (access === "read" && canManageWork(viewer, problem)) return submission;
  throw new ServiceError("not_yours", `submission ${id} belongs to another user`, {
    field: "submission_id",
    submission_id: id,
  });
}
