import type postgres from "postgres";
import { readCampaign } from "../campaigns/read-campaign.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { discoverableProblemSql } from "../visibility/visibility-sql.ts";
import { joinFragments } from "./join-fragments.ts";
import { type Problem, toProblem } from "./problem.ts";
import { type ProblemRow, problemColumnsSql } from "./problem-row.ts";

/** One pick: the canonical Problem and, in plain text, why it was suggested. */
export type PickedProblem = Problem & { reason: string };

/**
 * pick_problem: open Problems worth starting now, best first. The ordering is advisory (spec
 * 4.1): priority weight divided by one more than the active Attempts, so an untouched Problem
 * outranks a slightly more important one many people are already on. Same visibility as search.
 */
export async function pickProblems(
  sql: Sql,
  viewer: Viewer,
  options: { campaign?: string; structure?: ProblemRow["structure"]; limit: number },
): Promise<{ problems: PickedProblem[] }> {
  const filters: postgres.Fragment[] = [
    discoverableProblemSql(sql, viewer),
    sql`p.status = 'open'`,
    sql`p.current_revision_id is not null`,
  ];
  if (options.campaign !== undefined) {
    const campaign = await readCampaign(sql, viewer, options.campaign);
    filters.push(sql`p.campaign_id = ${campaign.id}`);
  }
  if (options.structure !== undefined) filters.push(sql`p.structure = ${options.structure}`);
  const rows = await sql<ProblemRow[]>`
    select ${problemColumnsSql(sql)}
    from problems p left join campaigns c on c.id = p.campaign_id
    where ${joinFragments(sql, filters, " and ")}
    order by p.priority_weight / (1 + p.active_attempts) desc, p.priority_weight desc, p.slug collate "C"
    limit ${options.limit}`;
  return { problems: rows.map((row) => ({ ...toProblem(row), reason: pickReason(row, viewer) })) };
}

/** Why a Problem was picked, in one plain sentence. */
function pickReason(row: ProblemRow, viewer: Viewer): string {
  const weight = row.priority_weight;
  const importance = weight >= 0.75 ? "High priority" : weight >= 0.4 ? "Medium priority" : "Low priority";
  const crowd =
    row.active_attempts === 0
      ? "nobody is working on it yet"
      : `${row.active_attempts} active attempt${row.active_attempts === 1 ? "" : "s"} so far`;
  const where = row.campaign_slug ? ` in campaign ${row.campaign_slug}` : "";
  const own = row.owner_user_id === viewer.userId ? " (your own work)" : "";
  return `${importance} (${weight})${where} and ${crowd}${own}.`;
}
