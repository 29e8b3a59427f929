import { WorkingAttemptReason } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";
import { findAttempt } from "./find-attempt.ts";

/** What became of a `working_attempt_id` on a read (spec 4.1). */
export interface WorkingAttemptOutcome {
  id: string;
  /** True when the id names an active Attempt of the caller. */
  accepted: boolean;
  reason?: WorkingAttemptReason;
  /** The Attempt's Problem when it is the caller's (accepted or ended). */
  problem_id?: string;
}

/**
 * Checks a working Attempt id against the caller's own Attempts: `not_found` when no Attempt the
 * caller can see has it, `not_yours` when it is someone else's on a Problem the caller sees,
 * `ended` when it is theirs but over. The read itself goes ahead either way: the outcome only
 * tells the agent its context is wrong.
 */
export async function checkWorkingAttemptId(
  sql: Sql,
  viewer: Viewer,
  id: string,
): Promise<WorkingAttemptOutcome> {
  const attempt = await findAttempt(sql, id);
  const problem = attempt && (await findProblem(sql, attempt.problem_id));
  if (!attempt || !problem || !canReadWork(viewer, problem)) {
    return { id, accepted: false, reason: WorkingAttemptReason.not_found };
  }
  if (attempt.user_id !== viewer.userId)
    return { id, accepted: false, reason: WorkingAttemptReason.not_yours };
  if (attempt.status !== "active") {
    return { id, accepted: false, reason: WorkingAttemptReason.ended, problem_id: attempt.problem_id };
  }
  return { id, accepted: true, problem_id: attempt.problem_id };
}
