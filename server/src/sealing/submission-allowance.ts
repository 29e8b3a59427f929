import type { SealingPolicy } from "./sealing-policy.ts";

/** A user's counted Submissions on one evaluation inside the current window. */
export interface QuotaUsage {
  used: number;
  /** created_at of the oldest counted Submission; null when none counts. */
  oldest: Date | null;
}

/** `submission_allowance` of the get_problem envelope (spec 4.1) for sealed work. */
export interface SubmissionAllowance {
  evaluation_id: string;
  limit: { max_submissions: number; window_hours: number };
  used: number;
  remaining: number;
  /** When the oldest counted Submission leaves the window and frees a slot; null when none counts. */
  next_reset_at: string | null;
  submission_closes_at: string | null;
}

const HOUR_MS = 3_600_000;

/**
 * Where the rolling window starts at `now`: a Submission counts while `created_at` is after it,
 * so one made at T frees its slot exactly at T + window_hours.
 */
export function windowStart(sealing: SealingPolicy, now: Date): Date {
  return new Date(now.getTime() - sealing.submission_limit.window_hours * HOUR_MS);
}

/** The allowance a usage leaves under the policy. */
export function submissionAllowance(
  sealing: SealingPolicy,
  evaluationId: string,
  usage: QuotaUsage,
): SubmissionAllowance {
  const { max_submissions, window_hours } = sealing.submission_limit;
  return {
    evaluation_id: evaluationId,
    limit: { max_submissions, window_hours },
    used: usage.used,
    remaining: Math.max(0, max_submissions - usage.used),
    next_reset_at: usage.oldest
      ? new Date(usage.oldest.getTime() + window_hours * HOUR_MS).toISOString()
      : null,
    submission_closes_at: sealing.submission_closes_at,
  };
}
