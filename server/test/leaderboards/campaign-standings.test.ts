import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { campaignStandings } from "../../src/leaderboards/campaign-standings.ts";
import type { Leaderboard } from "../../src/leaderboards/leaderboard.ts";

const board = (slug: string, ranks: Array<[string, number]>, withheld = false): Leaderboard => ({
  problem_id: `prb_${slug}`,
  problem_slug: slug,
  problem_revision_id: `prv_${slug}`,
  revision_number: 1,
  metric: { name: "score", unit: null, direction: "higher_is_better" },
  baseline: null,
  withheld: withheld ? { because: "score_release", until: null } : null,
  entries: ranks.map(([handle, rank]) => ({
    rank,
    participant: { user_id: `usr_${handle}`, handle },
    score: 100 - rank,
    verification_run_id: `vrn_${handle}${slug}`,
    submission_id: `sub_${handle}${slug}`,
    finished_at: "2030-01-01T00:00:00.000Z",
  })),
});

describe("campaign standings", () => {
  it("ranks by problems entered, then by mean rank; ties share a rank; withheld boards count nothing", () => {
    const standings = campaignStandings([
      board("a", [
        ["ada", 1],
        ["bob", 2],
        ["cy", 3],
      ]),
      board("b", [
        ["bob", 1],
        ["ada", 2],
      ]),
      board("c", [["cy", 1]], true),
      board("d", [["dee", 1]]),
    ]);
    expect(standings.map((s) => [s.rank, s.participant.handle, s.problems, s.mean_rank])).toEqual([
      [1, "ada", 2, 1.5],
      [1, "bob", 2, 1.5],
      [3, "dee", 1, 1],
      [4, "cy", 1, 3],
    ]);
    expect(standings[0]!.ranks).toEqual({ a: 1, b: 2 });
  });

  it("orders every input consistently (property)", () => {
    const handles = ["ada", "bob", "cy", "dee", "eve"];
    const boards = fc.array(
      fc.subarray(handles, { minLength: 1 }).map((who) => who.map((h, i) => [h, i + 1] as [string, number])),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(boards, (lists) => {
        const standings = campaignStandings(lists.map((ranks, i) => board(`p${i}`, ranks)));
        for (let i = 1; i < standings.length; i++) {
          const [a, b] = [standings[i - 1]!, standings[i]!];
          expect(a.problems > b.problems || (a.problems === b.problems && a.mean_rank <= b.mean_rank)).toBe(
            true,
          );
          expect(b.rank).toBe(a.problems === b.problems && a.mean_rank === b.mean_rank ? a.rank : i + 1);
        }
        const entered = new Set(lists.flat().map(([h]) => h));
        expect(standings).toHaveLength(entered.size);
      }),
    );
  });
});
