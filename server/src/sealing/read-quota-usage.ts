import type { Sql } from "../core/db/connect-sql.ts";
import { evaluationRevisions } from "./evaluation-revision-ids.ts";
import type { SealingPolicy } from "./sealing-policy.ts";
import { type QuotaUsage, windowStart } from "./submission-allowance.ts";

/**
 * How many Submissions `userId` made on any revision of the evaluation inside the rolling window
 * ending at `now`, withdrawn ones and those whose runs were invalid included (spec 2.3). Reruns
 * and preflight create no Submission, so they never count. `ownerUserId` owns the evaluation.
 */
export async function readQuotaUsage(
  sql: Sql,
  userId: string,
  evaluationId: string,
  ownerUserId: string,
  sealing: SealingPolicy,
  now: Date,
): Promise<QuotaUsage> {
  const revisionIds = (await evaluationRevisions(sql, evaluationId, ownerUserId)).map(
    (r) => r.problem_revision_id,
  );
  const [row] = await sql<{ used: number; oldest: Date | null }[]>`
    select count(*)::int as used, min(s.created_at) as oldest
    from submissions s
    where s.user_id = ${userId} and s.created_at > ${windowStart(sealing, now)}
      and s.problem_revision_id = any(${revisionIds})`;
  return { used: row?.used ?? 0, oldest: row?.oldest ?? null };
}

/**
 * Serializes quota decisions of one user on one evaluation until the transaction ends, so
 * concurrent create_submission calls count each other's Submissions (spec 2.3 "enforced under
 * concurrency"): under READ COMMITTED each waiter's count, taken after the lock, sees the
 * Submission its predecessor committed.
 */
export async function lockQuota(sql: Sql, userId: string, evaluationId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`sev:${evaluationId}`}), hashtext(${userId}))`;
}
