/**
 * A leaderboard (docs/website.md, "Leaderboards"): the best verified, unrevoked score of each
 * participant on one revision of a scored Problem, ranked by the score's direction. Glossary:
 * - participant: the user who made the Submission;
 * - entry: that participant's best run (ties: the earlier run first);
 * - withheld: the sealed evaluation hides scores from this reader for now, so no entry is shown.
 */
export interface LeaderboardEntry {
  /** 1-based; participants with equal scores share a rank (1, 2, 2, 4). */
  rank: number;
  participant: { user_id: string; handle: string };
  score: number;
  verification_run_id: string;
  submission_id: string;
  finished_at: string;
}

export const ScoreDirection = {
  higher_is_better: "higher_is_better",
  lower_is_better: "lower_is_better",
} as const;
export type ScoreDirection = (typeof ScoreDirection)[keyof typeof ScoreDirection];

export const WithheldBecause = {
  /** final_only score release: scores are hidden until release_at (or an earlier label release). */
  score_release: "score_release",
  /** entries: independent: who scored what stays private until selection freezes. */
  independent_entries: "independent_entries",
} as const;
export type WithheldBecause = (typeof WithheldBecause)[keyof typeof WithheldBecause];

export interface Leaderboard {
  problem_id: string;
  problem_slug: string;
  problem_revision_id: string;
  revision_number: number;
  metric: { name: string; unit: string | null; direction: ScoreDirection };
  /** The benchmark's reference value, drawn as a line among the entries; null when none. */
  baseline: number | null;
  withheld: { because: WithheldBecause; until: string | null } | null;
  entries: LeaderboardEntry[];
}
