import type { AttemptStatus } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import { readProblem } from "../problems/read-problem.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import type { Attempt } from "./attempt.ts";
import { pageAttempts } from "./page-attempts.ts";

/** list_my_attempts: the caller's own Attempts, newest first, optionally on one Problem or in one status. */
export async function listMyAttempts(
  services: Services,
  caller: Caller,
  input: { problem?: string; status?: AttemptStatus; limit: number; cursor?: string },
): Promise<{ attempts: Attempt[]; cursor: string | null }> {
  const { sql } = services;
  const viewer = viewerOf(caller.principal);
  const filters = [sql`a.user_id = ${viewer.userId}`];
  const problem = input.problem === undefined ? null : await readProblem(sql, viewer, input.problem);
  if (problem) filters.push(sql`a.problem_id = ${problem.id}`);
  if (input.status !== undefined) filters.push(sql`a.status = ${input.status}`);
  return pageAttempts(sql, filters, {
    limit: input.limit,
    cursor: input.cursor,
    parameters: { tool: "list_my_attempts", problem: problem?.id ?? null, status: input.status ?? null },
  });
}
