import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";

/**
 * True for runs the viewer may read: their own Submission's runs, runs on Problems they own
 * (managers), and everything for administrators. Expects the run as `r`; reviewers of a run's
 * Submission gain sight through review cases, not here. Everyone else gets not_found.
 */
export function readableRunSql(sql: Sql, viewer: Viewer): postgres.Fragment {
  if (viewer.isAdministrator) return sql`true`;
  return sql`exists (
    select 1 from submissions s join problems p on p.id = s.problem_id
    where s.id = r.submission_id and (s.user_id = ${viewer.userId} or p.owner_user_id = ${viewer.userId}))`;
}

/**
 * readableRunSql's rule for a run already in hand (a leaderboard row): whether `viewer` may open
 * it, from its submitter and its Problem's owner. Keep the two in step.
 */
export function canReadRun(
  viewer: Viewer | null,
  run: { submitterUserId: string; problemOwnerUserId: string },
): boolean {
  if (!viewer) return false;
  return (
    viewer.isAdministrator ||
    viewer.userId === run.submitterUserId ||
    viewer.userId === run.problemOwnerUserId
  );
}
