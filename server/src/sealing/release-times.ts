import { ScoreReleaseMode } from "@svc/schemas";
import type { SealingPolicy } from "./sealing-policy.ts";

/**
 * When the sealed labels become public: an early release (`unsealed_at`) or `sealed_until`,
 * whichever came first. Reaching a date releases without any write, so every read compares
 * with the clock instead of trusting a job to have run.
 */
export function labelReleaseAt(sealing: SealingPolicy): string {
  const { unsealed_at, sealed_until } = sealing;
  return unsealed_at !== null && Date.parse(unsealed_at) < Date.parse(sealed_until)
    ? unsealed_at
    : sealed_until;
}

/** Whether the sealed labels (bytes, protected evidence and logs) are public at `now`. */
export function isLabelReleased(sealing: SealingPolicy, now: Date): boolean {
  return sealing.unsealed_at !== null || now.getTime() >= Date.parse(sealing.sealed_until);
}

/**
 * Whether results and scores are visible at `now`: always for `immediate`; for `final_only` from
 * `release_at`, or from an earlier label release (spec 2.3 "early label release also releases
 * scores").
 */
export function isScoreReleased(sealing: SealingPolicy, now: Date): boolean {
  const { mode, release_at } = sealing.score_release;
  switch (mode) {
    case ScoreReleaseMode.immediate:
      return true;
    case ScoreReleaseMode.final_only:
      return (
        (release_at !== null && now.getTime() >= Date.parse(release_at)) || isLabelReleased(sealing, now)
      );
    default: {
      const never: never = mode;
      throw new Error(`unhandled score release mode ${String(never)}`);
    }
  }
}

/** Whether the submission cutoff has passed at `now` (it stays in force after unsealing). */
export function isCutOff(sealing: SealingPolicy, now: Date): boolean {
  return sealing.submission_closes_at !== null && now.getTime() >= Date.parse(sealing.submission_closes_at);
}

/**
 * When final-entry selection freezes: the cutoff or the label release, whichever comes first
 * (spec 4.1 nominate_final_entry).
 */
export function selectionFreezesAt(sealing: SealingPolicy): string {
  const release = labelReleaseAt(sealing);
  const cutoff = sealing.submission_closes_at;
  return cutoff !== null && Date.parse(cutoff) < Date.parse(release) ? cutoff : release;
}
