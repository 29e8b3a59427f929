import type { Sql } from "../db/connect-sql.ts";
import { ServiceError } from "../errors/service-error.ts";
import { readableSkillVersionSql } from "../work/mechanism-visibility-sql.ts";
import type { Viewer } from "../work/viewer.ts";
import type { SkillVersionRow } from "./skill-version-row.ts";

const SKILL_VERSION_ID = /^skv_[0-9a-z]{10,32}$/;

/**
 * The SkillVersion the viewer names, when they may read it (mechanism-visibility-sql.ts);
 * not_found otherwise. Yanked versions stay readable: revisions keep their pins.
 */
export async function readSkillVersion(
  sql: Sql,
  viewer: Viewer | null,
  id: string,
): Promise<SkillVersionRow> {
  const [row] = SKILL_VERSION_ID.test(id)
    ? await sql<SkillVersionRow[]>`
        select sv.*, s.publisher_user_id
        from skill_versions sv join skills s on s.id = sv.skill_id
        where sv.id = ${id} and ${readableSkillVersionSql(sql, viewer)}`
    : [];
  if (!row)
    throw new ServiceError("not_found", `no skill version has the id "${id}"`, { skill_version_id: id });
  return row;
}
