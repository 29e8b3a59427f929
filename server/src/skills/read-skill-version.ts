import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import {
  pinnedByReadableRevisionSql,
  protocolUsesSkillSql,
  readableProtocolIdsSql,
} from "../visibility/mechanism-visibility-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import type { SkillVersionRow } from "./skill-version-row.ts";

const SKILL_VERSION_ID = idPattern(IdPrefix.skillVersion);

/**
 * The SkillVersion the viewer names, when they may read it (see mechanism-visibility-sql.ts);
 * not_found otherwise. Yanked versions stay readable: revisions keep their pins.
 */
export async function readSkillVersion(
  sql: Sql,
  viewer: Viewer | null,
  id: string,
): Promise<SkillVersionRow> {
  const [row] = SKILL_VERSION_ID.test(id)
    ? await sql<SkillVersionRow[]>`
        select sv.*, s.publisher_user_id from skill_versions sv join skills s on s.id = sv.skill_id
        where sv.id = ${id}`
    : [];
  if (!row || !(await mayRead(sql, viewer, row))) {
    throw new ServiceError("not_found", `no skill version has the id "${id}"`, { skill_version_id: id });
  }
  return row;
}

/** Whether the viewer (null: an anonymous link holder) may read the SkillVersion `id`. */
export async function canReadSkillVersion(sql: Sql, viewer: Viewer | null, id: string): Promise<boolean> {
  try {
    await readSkillVersion(sql, viewer, id);
    return true;
  } catch (error) {
    if (error instanceof ServiceError && error.code === "not_found") return false;
    throw error;
  }
}

/**
 * Its publisher and administrators; else anyone who may read a revision pinning it, or a
 * protocol supplying it to reviewers. Two flat queries rather than one nested one: each stays a
 * cheap lookup whatever the planner guesses about the jsonb containment in it.
 */
async function mayRead(sql: Sql, viewer: Viewer | null, row: SkillVersionRow): Promise<boolean> {
  if (viewer !== null && (viewer.isAdministrator || viewer.userId === row.publisher_user_id)) return true;
  const [pinned] = await sql`select ${pinnedByReadableRevisionSql(sql, viewer, row.id)} as yes`;
  if (pinned?.yes) return true;
  const [supplied] = await sql`
    with readable as materialized (${readableProtocolIdsSql(sql, viewer)})
    select 1 from review_protocols rp
    where rp.id in (select id from readable) and ${protocolUsesSkillSql(sql, row.id)}
    limit 1`;
  return supplied !== undefined;
}
