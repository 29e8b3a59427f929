import type { Sql } from "../core/db/connect-sql.ts";
import { userCanReadReviewSubject } from "../visibility/review-subject-access.ts";

/**
 * Ends, as `lapsed`, the live claims of reviewers who may no longer read the work under review
 * (it turned private, or an administrator lost the role): their seat reopens for an eligible
 * reader at once, and they read nothing more of the case (docs/reviews.md, "Losing access to
 * a claimed seat"). Submitted judgments stand: they were made with access. Runs when the work's
 * visibility changes, and again on the next touch of the process (a claim, a read of the case or
 * an assignment, a submit or decline), which covers a role lost elsewhere. Returns the ids ended.
 */
export async function endClaimsWithoutAccess(sql: Sql, processIds: string[], now: Date): Promise<string[]> {
  if (processIds.length === 0) return [];
  const claims = await sql<{ id: string; review_process_id: string; reviewer_user_id: string }[]>`
    select id, review_process_id, reviewer_user_id from review_assignments
    where review_process_id in ${sql(processIds)} and status = 'claimed' and reviewer_user_id is not null`;
  const ended: string[] = [];
  for (const claim of claims) {
    if (!(await userCanReadReviewSubject(sql, claim.reviewer_user_id, claim.review_process_id))) {
      ended.push(claim.id);
    }
  }
  if (ended.length > 0) {
    await sql`
      update review_assignments set status = 'lapsed', ended_at = ${now}
      where id in ${sql(ended)} and status = 'claimed'`;
  }
  return ended;
}

/** The open processes reviewing a Problem, or any Problem or proposal of a Campaign. */
export async function openProcessesOfWork(
  sql: Sql,
  work: { kind: "problem" | "campaign"; id: string },
): Promise<string[]> {
  const rows =
    work.kind === "problem"
      ? await sql<{ id: string }[]>`
          select id from review_processes where problem_id = ${work.id} and status = 'open'`
      : await sql<{ id: string }[]>`
          select id from review_processes where status = 'open' and (campaign_id = ${work.id}
            or problem_id in (select id from problems where campaign_id = ${work.id}))`;
  return rows.map((row) => row.id);
}

/** endClaimsWithoutAccess on the process of the assignment `assignmentId` (unknown ids: nothing). */
export async function endClaimsWithoutAccessAround(sql: Sql, assignmentId: string, now: Date): Promise<void> {
  const [row] = await sql<{ review_process_id: string }[]>`
    select review_process_id from review_assignments where id = ${assignmentId}`;
  if (row) await endClaimsWithoutAccess(sql, [row.review_process_id], now);
}
