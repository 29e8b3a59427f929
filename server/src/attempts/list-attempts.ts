import type { Services } from "../core/services/services.ts";
import { readProblem } from "../problems/read-problem.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { canManageWork } from "../visibility/work-access.ts";
import type { Attempt } from "./attempt.ts";
import { pageAttempts } from "./page-attempts.ts";

/**
 * list_attempts: the Attempts on one Problem the caller may see, newest first, each with
 * `continues_attempt_id` and `continued_by_attempt_id` so chains can be followed. Participants see
 * their own; the Problem's managers (owner, administrators) see everyone's. `scope` says which.
 */
export async function listAttempts(
  services: Services,
  caller: Caller,
  input: { problem: string; limit: number; cursor?: string },
): Promise<{ attempts: Attempt[]; cursor: string | null; scope: "own" | "all" }> {
  const { sql } = services;
  const viewer = viewerOf(caller.principal);
  const problem = await readProblem(sql, viewer, input.problem);
  const all = canManageWork(viewer, problem);
  const filters = [sql`a.problem_id = ${problem.id}`];
  if (!all) filters.push(sql`a.user_id = ${viewer.userId}`);
  const page = await pageAttempts(sql, filters, {
    limit: input.limit,
    cursor: input.cursor,
    parameters: { tool: "list_attempts", problem: problem.id, all },
  });
  return { ...page, scope: all ? "all" : "own" };
}
