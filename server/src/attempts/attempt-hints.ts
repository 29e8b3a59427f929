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
  if (active.length === 1 && workingAttemptId === undefined)
    return oneActiveAttemptText(problem.slug, active[0]!);
  return undefined;
}

function oneActiveAttemptText(slug: string, attemptId: string): string {
  return `You have one active Attempt on ${slug}, ${attemptId}: pass "working_attempt_id": "${attemptId}" on reads for it, and "attempt_id" on writes.`;
}

/**
 * The hint of every other read on a Problem (spec 4.1: "reads without it on a Problem where the
 * caller has exactly one active Attempt add a hint asking for it"): tools naming a `problem`
 * and resources of one of its revisions. The caller passed no working_attempt_id; the read itself
 * already succeeded, so this only names the caller's own Attempt. Undefined otherwise.
 */
export async function oneActiveAttemptHint(
  sql: Sql,
  userId: string,
  on: { problem: string } | { revisionId: string },
): Promise<string | undefined> {
  const [row] = await sql<{ slug: string; active: string[] }[]>`
    select p.slug, array(select a.id from attempts a
      where a.problem_id = p.id and a.user_id = ${userId} and a.status = 'active' order by a.id) as active
    from problems p
    where ${
      "problem" in on
        ? sql`(p.id = ${on.problem} or p.slug = ${on.problem})`
        : sql`p.id = (select problem_id from problem_revisions where id = ${on.revisionId})`
    }
    limit 1`;
  if (!row || row.active.length !== 1) return undefined;
  return oneActiveAttemptText(row.slug, row.active[0]!);
}

/** How many active Attempts the user has on any Problem (pick_problem's start hint). */
export async function countActiveAttempts(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from attempts where user_id = ${userId} and status = 'active'`;
  return row?.count ?? 0;
}
