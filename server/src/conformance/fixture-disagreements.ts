import type { FixtureResult } from "@svc/app";
import type { FixtureDisagreement } from "../sandbox-images/read-differentials.ts";

/**
 * The fixtures on which `results` (the new implementation) and `against` (the current one) give a
 * different result or a different score. Scores are compared with the same tolerance conformance
 * uses against an expected score, so float noise from one run to the next is no disagreement.
 */
export function fixtureDisagreements(
  results: readonly FixtureResult[],
  against: readonly FixtureResult[],
): FixtureDisagreement[] {
  const byFixture = new Map(against.map((r) => [r.fixture, r]));
  const disagreements: FixtureDisagreement[] = [];
  for (const mine of results) {
    const theirs = byFixture.get(mine.fixture);
    if (theirs === undefined) continue;
    if (mine.actual === theirs.actual && sameScore(mine.score, theirs.score)) continue;
    disagreements.push({
      fixture_key: mine.fixture,
      result: mine.actual,
      against_result: theirs.actual,
      score: mine.score,
      against_score: theirs.score,
    });
  }
  return disagreements;
}

function sameScore(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
}
