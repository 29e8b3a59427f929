import type { StageResult } from "@svc/app";
import type { Sql } from "../core/db/connect-sql.ts";

/** One fixture on which a new implementation and the stage's current one differ (issue 19 item 5). */
export interface FixtureDisagreement {
  fixture_key: string;
  result: StageResult;
  against_result: StageResult;
  score: number | null;
  against_score: number | null;
}

/**
 * What an implementation's differential conformance found, as get_sandbox_image_status and
 * get_verifier_contract show it. It lives in this folder because both reads and the conformance
 * worker that writes it may import it without a cycle between the server's folders.
 */
export interface Differential {
  /** The stage's current implementation it was compared with; null when there was none. */
  differential_against_implementation_id: string | null;
  /** The fixtures on which the two differ, by fixture key; empty when they agree or nothing was compared. */
  disagreements: FixtureDisagreement[];
}

/** The differential of each of `ids` (implementations still pending have none yet). */
export async function readDifferentials(
  sql: Sql,
  ids: readonly string[],
): Promise<Map<string, Differential>> {
  const differentials = new Map<string, Differential>();
  if (ids.length === 0) return differentials;
  const rows = await sql<{ id: string; against: string | null }[]>`
    select id, conformance->>'differential_against_implementation_id' as against
    from verifier_implementations where id = any(${ids as string[]})`;
  for (const row of rows) {
    differentials.set(row.id, { differential_against_implementation_id: row.against, disagreements: [] });
  }
  const disagreements = await sql<(FixtureDisagreement & { verifier_implementation_id: string })[]>`
    select verifier_implementation_id, fixture_key, result, against_result, score, against_score
    from conformance_disagreements where verifier_implementation_id = any(${ids as string[]})
    order by verifier_implementation_id, fixture_key`;
  for (const { verifier_implementation_id, ...d } of disagreements) {
    differentials.get(verifier_implementation_id)?.disagreements.push(d);
  }
  return differentials;
}
