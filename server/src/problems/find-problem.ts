import { IdPrefix, idPattern } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import type { ProblemRevisionRow } from "./problem-revision.ts";
import { type ProblemRow, problemColumnsSql, problemRowOf } from "./problem-row.ts";
import { guessedRevision, rememberRevision } from "./revision-cache.ts";

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

/**
 * findProblem and one of its revisions (`number`, else the current one) in one round trip: the
 * revision is null when the Problem has no such revision. Its `sealing` is the stored policy.
 * `also`, when given, is a value computed in the same statement from the found Problem (`p`),
 * returned as `also`: a caller's further reads of that Problem cost no round trip of their own.
 */
export async function findProblemRevision<Also = never>(
  sql: Sql,
  reference: string,
  number?: number,
  also?: postgres.Fragment,
): Promise<{ problem: ProblemRow; revision: ProblemRevisionRow | null; also: Also } | null> {
  const byId = PROBLEM_ID.test(reference);
  // The revision this reference resolved to last is likely the one found again: when it is, the
  // statement returns its id alone and the row comes from the cache (revisions never change).
  const guess = guessedRevision(reference, number);
  const [row] = await sql<
    (ProblemRow & {
      revision_id: string | null;
      revision: (Omit<ProblemRevisionRow, "created_at"> & { created_at: string }) | null;
      also: Also;
    })[]
  >`
    select ${problemColumnsSql(sql)}, r.id as revision_id,
      case when r.id = ${guess?.id ?? null}::text then null else to_jsonb(r) end as revision,
      ${also ?? sql`null`} as also
    from problems p left join campaigns c on c.id = p.campaign_id
    left join problem_revisions r
      on r.problem_id = p.id and r.revision_number = coalesce(${number ?? null}::int, p.current_revision_number)
    where ${byId ? sql`p.id = ${reference}` : sql`p.slug = ${reference}`}`;
  if (!row) return null;
  const { revision_id, revision, also: value } = row;
  const problem = problemRowOf(row);
  let found: ProblemRevisionRow | null = null;
  if (revision_id !== null && revision === null && guess?.id === revision_id) found = guess;
  else if (revision !== null) {
    found = rememberRevision(reference, number, { ...revision, created_at: new Date(revision.created_at) });
  }
  return { problem, revision: found, also: value };
}
