import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "./viewer.ts";
import { discoverableProblemSql, readableProblemSql } from "./visibility-sql.ts";

/**
 * A ReviewProcess is as visible as the work it reviews: a viewer reaches its seats, case, bundle,
 * assignments and the artifacts they lead to only while they may read the Problem under review
 * (canReadWork: its owner, administrators, or anyone when it is not effectively private). A
 * proposal without a Problem follows its Campaign the same way. Eligibility to review is checked
 * on top of this, never instead of it (docs/reviews.md, "Who reads what").
 *
 * `process` names the alias of the `review_processes` row the fragment tests.
 */
export function readableReviewSubjectSql(sql: Sql, viewer: Viewer | null, process = "rp"): postgres.Fragment {
  if (viewer?.isAdministrator) return sql`true`;
  const campaignReadable =
    viewer === null
      ? sql`c.visibility <> 'private'`
      : sql`(c.owner_user_id = ${viewer.userId} or c.visibility <> 'private')`;
  return subjectSql(sql, process, readableProblemSql(sql, viewer), campaignReadable);
}

/**
 * The same for surfacing a process unasked (pick_review's seats, agent jobs): only work that
 * may be discovered (canDiscoverWork: listed, or the viewer's own). Unlisted work's seats are
 * found by naming its Problem; administrators are not shown other owners' unlisted or private seats.
 */
export function discoverableReviewSubjectSql(
  sql: Sql,
  viewer: Viewer | null,
  process = "rp",
): postgres.Fragment {
  const campaignListed =
    viewer === null
      ? sql`c.visibility = 'listed'`
      : sql`(c.owner_user_id = ${viewer.userId} or c.visibility = 'listed')`;
  return subjectSql(sql, process, discoverableProblemSql(sql, viewer), campaignListed);
}

/** A rule over the process's Problem (`p`, its Campaign `c`), or its Campaign alone for a proposal. */
function subjectSql(
  sql: Sql,
  process: string,
  problemRule: postgres.Fragment,
  campaignRule: postgres.Fragment,
): postgres.Fragment {
  const column = (name: string) => sql.unsafe(`${process}.${name}`);
  return sql`(case when ${column("problem_id")} is not null then exists (
      select 1 from problems p left join campaigns c on c.id = p.campaign_id
      where p.id = ${column("problem_id")} and ${problemRule})
    else exists (select 1 from campaigns c where c.id = ${column("campaign_id")} and ${campaignRule}) end)`;
}

/** Whether the viewer may read the work the ReviewProcess `processId` reviews. */
export async function canReadReviewSubject(sql: Sql, viewer: Viewer, processId: string): Promise<boolean> {
  const rows = await sql`
    select 1 from review_processes rp where rp.id = ${processId} and ${readableReviewSubjectSql(sql, viewer)}`;
  return rows.length > 0;
}

/**
 * Whether the user `userId` may read the work the ReviewProcess `processId` reviews, with their
 * administrator role read live from the users table (for writes and sweeps that hold a user id).
 */
export async function userCanReadReviewSubject(
  sql: Sql,
  userId: string,
  processId: string,
): Promise<boolean> {
  const asUser = readableReviewSubjectSql(sql, { userId, isAdministrator: false });
  const rows = await sql`
    select 1 from review_processes rp join users u on u.id = ${userId}
    where rp.id = ${processId} and (u.is_admin or ${asUser})`;
  return rows.length > 0;
}
