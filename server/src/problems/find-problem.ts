import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { type ProblemRow, problemColumnsSql } from "./problem-row.ts";

const PROBLEM_ID = idPattern(IdPrefix.problem);

/**
 * The Problem a caller names by `prb_` id or by slug, whatever its visibility, or null. Callers
 * apply the visibility rules; this is the one place that decides how a reference is read.
 */
export async function findProblem(sql: Sql, reference: string): Promise<ProblemRow | null> {
  const byId = PROBLEM_ID.test(reference);
  const [row] = await sql<ProblemRow[]>`
    select ${problemColumnsSql(sql)}
    from problems p left join campaigns c on c.id = p.campaign_id
    where ${byId ? sql`p.id = ${reference}` : sql`p.slug = ${reference}`}`;
  return row ?? null;
}
