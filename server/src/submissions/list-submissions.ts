import { AttemptAccess, readAttempt } from "../attempts/read-attempt.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { readProblem } from "../problems/read-problem.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { readSubmissions } from "./read-submissions.ts";
import type { Submission } from "./submission.ts";

/**
 * list_submissions: the Submissions of one Attempt the caller may read (theirs, or any on a
 * Problem they manage), or the caller's own on one Problem; oldest first, withdrawn included.
 */
export async function listSubmissions(
  services: Services,
  caller: Caller,
  input: { attempt_id?: string; problem?: string },
): Promise<{ submissions: Submission[] }> {
  const { sql } = services;
  const viewer = viewerOf(caller.principal);
  const reader = { viewer, now: services.clock() };
  if ((input.attempt_id === undefined) === (input.problem === undefined)) {
    throw new ServiceError("invalid_input", "give exactly one of attempt_id and problem", {
      field: input.attempt_id === undefined ? "attempt_id" : "problem",
    });
  }
  if (input.attempt_id !== undefined) {
    const { attempt } = await readAttempt(sql, viewer, input.attempt_id, { access: AttemptAccess.read });
    return { submissions: await readSubmissions(sql, { attemptId: attempt.id }, reader) };
  }
  const problem = await readProblem(sql, viewer, input.problem!);
  return {
    submissions: await readSubmissions(sql, { problemId: problem.id, userId: viewer.userId }, reader),
  };
}
