import { ServiceError } from "../core/errors/service-error.ts";
import { isCutOff } from "./release-times.ts";
import type { SealingPolicy } from "./sealing-policy.ts";
import type { SubmissionAllowance } from "./submission-allowance.ts";

/**
 * Refuses a Submission after the cutoff: `submission_closes_at` applies to Attempts started
 * before it and stays in force after unsealing (spec 2.3).
 */
export function checkCutoff(sealing: SealingPolicy, now: Date): void {
  if (!isCutOff(sealing, now)) return;
  throw new ServiceError(
    "submissions_closed",
    `submissions to this revision closed at ${sealing.submission_closes_at} (its sealing's submission_closes_at)`,
    { submission_closes_at: sealing.submission_closes_at },
  );
}

/** The refusal of a Submission over the rolling quota, saying when the next slot frees up. */
export function quotaExhausted(allowance: SubmissionAllowance): ServiceError {
  const { max_submissions, window_hours } = allowance.limit;
  return new ServiceError(
    "submission_quota_exhausted",
    `you have used all ${max_submissions} submissions this sealed evaluation allows per ${window_hours} hours ` +
      `(across all its revisions, withdrawn ones included); the next slot frees up at ${allowance.next_reset_at}`,
    {
      evaluation_id: allowance.evaluation_id,
      limit: allowance.limit,
      used: allowance.used,
      next_slot_at: allowance.next_reset_at,
    },
  );
}
