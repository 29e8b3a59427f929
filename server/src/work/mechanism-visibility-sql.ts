import type postgres from "postgres";
import type { Sql } from "../db/connect-sql.ts";
import type { Viewer } from "./viewer.ts";
import { readableProblemSql } from "./visibility-sql.ts";

/**
 * Mechanisms (VerifierContracts, ReviewProtocols, SkillVersions) are immutable, content-addressed
 * and carry no visibility of their own: they are as visible as the work that uses them. A viewer
 * may read one when they published it, are an administrator, or may read a Problem revision that
 * pins it (directly, or through a pinned Contract's review stage, or through that protocol's
 * skills). So a private package's checker, protocol and skills stay as private as its Problems.
 */

/** True when the viewer may read the VerifierContract `vc`. */
export function readableContractSql(sql: Sql, viewer: Viewer | null): postgres.Fragment {
  if (viewer?.isAdministrator) return sql`true`;
  const published = viewer === null ? sql`false` : sql`vc.publisher_user_id = ${viewer.userId}`;
  return sql`(${published} or exists (
    select 1 from problem_revisions r
      join problems p on p.id = r.problem_id
      left join campaigns c on c.id = p.campaign_id
    where r.verifier_contract_id = vc.id and ${readableProblemSql(sql, viewer)}))`;
}

/** True when the viewer may read the ReviewProtocol `rp`. */
export function readableProtocolSql(sql: Sql, viewer: Viewer | null): postgres.Fragment {
  if (viewer?.isAdministrator) return sql`true`;
  const published = viewer === null ? sql`false` : sql`rp.publisher_user_id = ${viewer.userId}`;
  return sql`(${published} or exists (
    select 1 from verifier_contracts vc
    where vc.document->'stages' @> jsonb_build_array(jsonb_build_object('review_protocol_id', rp.id))
      and ${readableContractSql(sql, viewer)}))`;
}

/** True when the viewer may read the SkillVersion `sv` of the Skill `s`. */
export function readableSkillVersionSql(sql: Sql, viewer: Viewer | null): postgres.Fragment {
  if (viewer?.isAdministrator) return sql`true`;
  const published = viewer === null ? sql`false` : sql`s.publisher_user_id = ${viewer.userId}`;
  return sql`(${published} or exists (
    select 1 from problem_revisions r
      join problems p on p.id = r.problem_id
      left join campaigns c on c.id = p.campaign_id
    where r.skill_refs @> jsonb_build_array(jsonb_build_object('skill_version_id', sv.id))
      and ${readableProblemSql(sql, viewer)}
  ) or exists (
    select 1 from review_protocols rp
    where rp.document->'nodes' @> jsonb_build_array(jsonb_build_object(
        'skills', jsonb_build_array(jsonb_build_object('skill_version_id', sv.id))))
      and ${readableProtocolSql(sql, viewer)}))`;
}
