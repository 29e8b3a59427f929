import type { Sql } from "../core/db/connect-sql.ts";
import { readQuotaUsage } from "./read-quota-usage.ts";
import type { SealingPolicy } from "./sealing-policy.ts";
import { type SubmissionAllowance, submissionAllowance } from "./submission-allowance.ts";

/**
 * get_problem's `submission_allowance` for `userId` on a revision whose sealing is already the
 * effective one; null for unsealed work.
 */
export async function readSubmissionAllowance(
  sql: Sql,
  userId: string,
  revision: { sealing: unknown },
  ownerUserId: string,
  now: Date,
): Promise<SubmissionAllowance | null> {
  const sealing = revision.sealing as SealingPolicy | null;
  if (sealing === null || sealing.evaluation_id === null) return null;
  const usage = await readQuotaUsage(sql, userId, sealing.evaluation_id, ownerUserId, sealing, now);
  return submissionAllowance(sealing, sealing.evaluation_id, usage);
}
