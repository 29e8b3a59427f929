import { EntriesMode, ScoreReleaseMode } from "@svc/schemas";

/**
 * Glossary of sealed evaluations (spec 2.3, 2.4, 4.1, 6.2, 6.3).
 *
 * - *sealed slot*: a reference input a Contract declares `sealed`; its bound bytes are withheld
 *   from everyone but the Problem's managers and the sandbox stages that select it.
 * - *evaluation*: every revision with the same complete sealed dataset and owners; they share one
 *   `evaluation_id`, one release state, one quota and one set of final entries.
 * - *label release*: the moment sealed bytes become public: an early release by a manager
 *   (`unsealed_at`, with a public `release_event`) or the scheduled `sealed_until`.
 * - *score release*: when withheld results and scores become visible: at once (`immediate`), or
 *   for `final_only` at `release_at` or an earlier label release.
 * - *protected stage*: a sandbox stage whose `reference_input_slots` select a sealed slot; its
 *   evidence and logs are withheld until label release.
 */

/** The public early-release audit event (spec 6.2). */
export interface ReleaseEvent {
  unsealed_at: string;
  user_id: string;
  reason_md: string;
}

/** A revision's sealing with its derived fields as reads show them (spec 2.3). */
export interface SealingPolicy {
  sealed_until: string;
  submission_limit: { max_submissions: number; window_hours: number };
  unsealed_at: string | null;
  submission_closes_at: string | null;
  score_release: { mode: ScoreReleaseMode; release_at: string | null };
  release_event: ReleaseEvent | null;
  entries: EntriesMode;
  evaluation_id: string | null;
}

/** What changes about an evaluation after publication: the `sealed_evaluations` row. */
export interface ReleaseState {
  unsealed_at: string | null;
  release_event: ReleaseEvent | null;
}

/**
 * The stored policy (authored fields plus the derived ones written at publication, possibly
 * incomplete on rows written before 007) with the evaluation's release state merged in.
 */
export function mergeReleaseState(
  stored: Record<string, unknown>,
  evaluationId: string | null,
  state: ReleaseState | null,
): SealingPolicy {
  const policy = stored as Partial<SealingPolicy> & Pick<SealingPolicy, "sealed_until">;
  return {
    ...(stored as object),
    sealed_until: policy.sealed_until,
    submission_limit: policy.submission_limit ?? { max_submissions: 1000, window_hours: 1 },
    unsealed_at: state?.unsealed_at ?? policy.unsealed_at ?? null,
    submission_closes_at: policy.submission_closes_at ?? null,
    score_release: policy.score_release ?? { mode: ScoreReleaseMode.immediate, release_at: null },
    release_event: state?.release_event ?? policy.release_event ?? null,
    entries: policy.entries ?? EntriesMode.collaborative,
    evaluation_id: policy.evaluation_id ?? evaluationId,
  };
}
