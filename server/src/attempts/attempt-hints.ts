import type { Sql } from "../core/db/connect-sql.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import type { AttemptSummary } from "./attempt-summary.ts";

/**
 * The hint a read on a Problem carries (spec 4.1): with no active Attempt of the caller on an open
 * Problem, call start_attempt; with exactly one and no `working_attempt_id` on the read, pass it.
 * Several active Attempts get no hint: the caller must choose, and list_my_attempts shows them.
 */
export function problemReadHint(
  problem: Pick<ProblemRow, "id" | "slug" | "status">,
  summary: Pick<AttemptSummary, "active_attempt_ids">,
  workingAttemptId: string | undefined,
): string | undefined {
  const active = summary.active_attempt_ids;
  if (active.length === 0) {
    if (problem.status !== "open") return undefined;
    return `You have no active Attempt on ${problem.slug}: call start_attempt with {"problem": "${problem.id}"} to begin; it returns these resources with URIs that carry your Attempt id.`;
  }
  if (active.length === 1 && workingAttemptId === undefined) {
    return `You have one active Attempt on ${problem.slug}, ${active[0]}: pass "working_attempt_id": "${active[0]}" on reads for it, and "attempt_id" on writes.`;
  }
  return undefined;
}

/** How many active Attempts the user has on any Problem (pick_problem's start hint). */
export async function countActiveAttempts(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from attempts where user_id = ${userId} and status = 'active'`;
  return row?.count ?? 0;
}
