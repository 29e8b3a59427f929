import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canManageWork, canReadWork } from "../visibility/work-access.ts";
import type { AttemptRow } from "./attempt.ts";
import { type AttemptRevision, findAttemptAndProblem } from "./find-attempt.ts";

/** Who may use an Attempt: its owner only (`own`, every write), or also the Problem's managers (`read`). */
export const AttemptAccess = { own: "own", read: "read" } as const;
export type AttemptAccess = (typeof AttemptAccess)[keyof typeof AttemptAccess];

/** An Attempt the caller may use, with its Problem (and its revision's facts when asked for). */
export interface ReadAttempt {
  attempt: AttemptRow;
  problem: ProblemRow;
  revision: AttemptRevision | null;
}

/**
 * The Attempt `id` names, for this viewer. Someone else's Attempt is `not_yours` when the viewer
 * can see its Problem (Attempt ids are unguessable, so this leaks nothing the viewer could not
 * learn) and `not_found` otherwise, exactly like an unknown id, so a private Problem never leaks.
 * With `read` access the Problem's managers (its owner and administrators) read anyone's Attempt.
 * `lock` locks the Attempt row for the caller's transaction; `revision` also reads its pinned
 * revision's facts (findAttemptAndProblem).
 */
export async function readAttempt(
  sql: Sql,
  viewer: Viewer,
  id: string,
  options: { access: AttemptAccess; lock?: boolean; field?: string; revision?: boolean },
): Promise<ReadAttempt> {
  const field = options.field ?? "attempt_id";
  const found = await findAttemptAndProblem(sql, id, { lock: options.lock, revision: options.revision });
  const { attempt, problem, revision } = found ?? { attempt: null, problem: null, revision: null };
  if (!attempt || !problem || !canReadWork(viewer, problem)) throw attemptNotFound(id, field);
  if (attempt.user_id === viewer.userId) return { attempt, problem, revision };
  if (options.access === AttemptAccess.read && canManageWork(viewer, problem))
    return { attempt, problem, revision };
  throw new ServiceError(
    "not_yours",
    `attempt ${id} belongs to another user: name one of your own Attempts (list_my_attempts lists them)`,
    { field, attempt_id: id },
  );
}

/** not_found for an Attempt id, naming the field it came in. */
export function attemptNotFound(id: string, field = "attempt_id"): ServiceError {
  return new ServiceError(
    "not_found",
    `no attempt ${id} is visible to you: list_my_attempts lists your Attempts`,
    { field, attempt_id: id },
  );
}

/** attempt_ended unless the Attempt is active: ended Attempts take no more writes. */
export function requireActive(attempt: AttemptRow): void {
  if (attempt.status === "active") return;
  throw new ServiceError(
    "attempt_ended",
    `attempt ${attempt.id} ended at ${attempt.ended_at?.toISOString()} (${attempt.outcome}) and takes no more notes, uploads or submissions: start_attempt with {"problem": "${attempt.problem_id}", "continues_attempt_id": "${attempt.id}"} to carry on`,
    { attempt_id: attempt.id, ended_at: attempt.ended_at?.toISOString() ?? null },
  );
}
