import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "./viewer.ts";

/**
 * The SQL twins of the rules in work-access.ts, for queries that filter many rows. They expect
 * the Problem as `p` and its Campaign (left joined, so null for a standalone Problem) as `c`.
 */

/** The effective visibility of `p`: the lesser of its own and its Campaign's (visibility.ts). */
export const EFFECTIVE_VISIBILITY_SQL = `(case
  when c.id is null then p.visibility
  when p.visibility = 'private' or c.visibility = 'private' then 'private'
  when p.visibility = 'unlisted' or c.visibility = 'unlisted' then 'unlisted'
  else 'listed' end)`;

/** The effective visibility of `p` as a fragment. */
export function effectiveVisibilitySql(sql: Sql): postgres.Fragment {
  return sql.unsafe(EFFECTIVE_VISIBILITY_SQL);
}

/** True for Problems the viewer may read by name (canReadWork); `viewer` null is anonymous. */
export function readableProblemSql(sql: Sql, viewer: Viewer | null): postgres.Fragment {
  if (viewer?.isAdministrator) return sql`true`;
  if (viewer === null) return sql`${effectiveVisibilitySql(sql)} <> 'private'`;
  return sql`(p.owner_user_id = ${viewer.userId} or ${effectiveVisibilitySql(sql)} <> 'private')`;
}

/**
 * True for Problems that may be surfaced to the viewer (canDiscoverWork). "Effectively listed" is
 * spelt as plain column tests rather than the case expression: the same truth (the lesser of two
 * visibilities is listed only when both are), but the planner knows how many rows pass
 * `p.visibility = 'listed'` and `p.campaign_id is null`, while it took the case expression to keep
 * one row in two hundred, so it read every full-text match of a broad query instead of walking the
 * priority index for one page (20-130 ms instead of 1-7 ms at 100,000 Problems).
 */
export function discoverableProblemSql(sql: Sql, viewer: Viewer | null): postgres.Fragment {
  const listed = sql`(p.visibility = 'listed' and (p.campaign_id is null or c.visibility = 'listed'))`;
  if (viewer === null) return listed;
  return sql`(p.owner_user_id = ${viewer.userId} or ${listed})`;
}
