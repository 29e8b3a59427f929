import type { Leaderboard } from "./leaderboard.ts";

/** One participant's standing across a Campaign's scored Problems. */
export interface CampaignStanding {
  /** 1-based; equal standings share a rank. */
  rank: number;
  participant: { user_id: string; handle: string };
  /** How many of the Campaign's ranked Problems the participant is on. */
  problems: number;
  /** The mean of their per-Problem ranks (1 is first), over those Problems. */
  mean_rank: number;
  /** Their rank on each Problem they are on, by Problem slug. */
  ranks: Record<string, number>;
}

/**
 * A Campaign's standings from its Problems' leaderboards (docs/website.md, "Campaign
 * leaderboard"): a participant on more Problems stands higher; among those on as many, the lower
 * mean of per-Problem ranks stands higher; equal on both share a rank. Ranks, not scores, are
 * combined, because each Problem's score has its own unit and direction. A withheld leaderboard
 * contributes nothing (its entries are not shown to this reader).
 */
export function campaignStandings(boards: readonly Leaderboard[]): CampaignStanding[] {
  const byUser = new Map<
    string,
    { participant: CampaignStanding["participant"]; ranks: Record<string, number> }
  >();
  for (const board of boards) {
    if (board.withheld) continue;
    for (const entry of board.entries) {
      const row = byUser.get(entry.participant.user_id) ?? { participant: entry.participant, ranks: {} };
      row.ranks[board.problem_slug] = entry.rank;
      byUser.set(entry.participant.user_id, row);
    }
  }
  const standings = [...byUser.values()].map(({ participant, ranks }) => {
    const values = Object.values(ranks);
    return {
      rank: 0,
      participant,
      problems: values.length,
      mean_rank: values.reduce((sum, rank) => sum + rank, 0) / values.length,
      ranks,
    };
  });
  standings.sort(
    (a, b) =>
      b.problems - a.problems ||
      a.mean_rank - b.mean_rank ||
      a.participant.handle.localeCompare(b.participant.handle),
  );
  standings.forEach((standing, i) => {
    const previous = standings[i - 1];
    standing.rank =
      previous && previous.problems === standing.problems && previous.mean_rank === standing.mean_rank
        ? previous.rank
        : i + 1;
  });
  return standings;
}

/** One row of a participant's own best scores, read from each Problem's leaderboard. */
export interface OwnStanding {
  problem_slug: string;
  metric: Leaderboard["metric"];
  /** Null when the leaderboard withholds entries from this reader for now. */
  entry: { rank: number; score: number; of: number } | null;
  withheld: boolean;
}

/** The participant's row on each leaderboard (skipping boards they are not on, unless withheld). */
export function ownStandings(boards: readonly Leaderboard[], userId: string): OwnStanding[] {
  const out: OwnStanding[] = [];
  for (const board of boards) {
    const mine = board.entries.find((entry) => entry.participant.user_id === userId);
    if (!mine && !board.withheld) continue;
    out.push({
      problem_slug: board.problem_slug,
      metric: board.metric,
      entry: mine ? { rank: mine.rank, score: mine.score, of: board.entries.length } : null,
      withheld: board.withheld !== null,
    });
  }
  return out;
}
