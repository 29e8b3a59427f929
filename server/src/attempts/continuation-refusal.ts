import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import type { AttemptRow } from "./attempt.ts";

/**
 * Why an Attempt cannot be continued by this viewer on this Problem, in the order spec 7 lists the
 * codes, or null when it can. `predecessor` is null when the id names no Attempt the viewer can
 * see. The error's `field` is `continues_attempt_id`.
 */
export function continuationRefusal(
  viewer: Viewer,
  id: string,
  predecessor: AttemptRow | null,
  problemId: string,
): ServiceError | null {
  const field = "continues_attempt_id";
  if (predecessor === null) {
    return new ServiceError(
      "not_found",
      `no attempt ${id} is visible to you: list_my_attempts lists the Attempts you can continue`,
      { field, attempt_id: id },
    );
  }
  if (predecessor.user_id !== viewer.userId) {
    return new ServiceError(
      "not_yours",
      `attempt ${id} belongs to another user: you can only continue your own Attempts`,
      { field, attempt_id: id },
    );
  }
  if (predecessor.problem_id !== problemId) {
    return new ServiceError(
      "different_problem",
      `attempt ${id} is on problem ${predecessor.problem_slug}, not this one: continue it on ${predecessor.problem_slug}, or start without continues_attempt_id`,
      { field, attempt_id: id, problem_id: predecessor.problem_id },
    );
  }
  if (predecessor.status === "active") {
    return new ServiceError(
      "still_active",
      `attempt ${id} is still active: call end_attempt on it (with an outcome and a summary note_md) before continuing it, or keep working in it`,
      { field, attempt_id: id },
    );
  }
  if (predecessor.continued_by_attempt_id !== null)
    return alreadyContinued(predecessor, predecessor.continued_by_attempt_id);
  return null;
}

/** already_continued, naming the successor to continue instead (spec 7). */
export function alreadyContinued(predecessor: AttemptRow, successorId: string): ServiceError {
  return new ServiceError(
    "already_continued",
    `attempt ${predecessor.id} was already continued by ${successorId}: continue that one (or the latest in its chain) instead`,
    {
      field: "continues_attempt_id",
      attempt_id: predecessor.id,
      successor_attempt_id: successorId,
      ended_at: predecessor.ended_at?.toISOString() ?? null,
    },
  );
}
