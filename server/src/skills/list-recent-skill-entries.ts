import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { discoverableProblemSql } from "../visibility/visibility-sql.ts";
import { skillVersionUri } from "./skill-uris.ts";
import { SKILL_ENTRY } from "./skill-version-row.ts";

/** How many SKILL.md entries resources/list offers. */
const RECENT_LIMIT = 50;

/**
 * The SKILL.md of recent non-yanked SkillVersions for resources/list (spec 4.1): those the
 * viewer published and those pinned by a revision of listed work, newest first. Discovery follows
 * the work: a skill used only by unlisted or private work is read by naming it, never listed.
 */
export async function listRecentSkillEntries(
  sql: Sql,
  viewer: Viewer,
): Promise<Array<{ uri: string; name: string; mimeType: string }>> {
  // Start from listed revisions' pins (a hash join), not from every version with a subquery each.
  const rows = await sql<{ id: string; name: string; version_number: number }[]>`
    with pinned as (
      select distinct ref->>'skill_version_id' as id
      from problem_revisions r
        join problems p on p.id = r.problem_id
        left join campaigns c on c.id = p.campaign_id,
        jsonb_array_elements(r.skill_refs) ref
      where ${discoverableProblemSql(sql, null)}
    )
    select sv.id, sv.name, sv.version_number
    from skill_versions sv join skills s on s.id = sv.skill_id
    where sv.yanked_at is null
      and (s.publisher_user_id = ${viewer.userId} or sv.id in (select id from pinned))
    order by sv.created_at desc, sv.id
    limit ${RECENT_LIMIT}`;
  return rows.map((row) => ({
    uri: skillVersionUri(row.id, SKILL_ENTRY),
    name: `${row.name} v${row.version_number} ${SKILL_ENTRY}`,
    mimeType: "text/markdown",
  }));
}
