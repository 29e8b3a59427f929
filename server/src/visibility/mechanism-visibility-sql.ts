import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
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

/** True when a revision the viewer may read pins the SkillVersion `skillVersionId`. */
export function pinnedByReadableRevisionSql(
  sql: Sql,
  viewer: Viewer | null,
  skillVersionId: string,
): postgres.Fragment {
  return sql`exists (
    select 1 from problem_revisions r
      join problems p on p.id = r.problem_id
      left join campaigns c on c.id = p.campaign_id
    where r.skill_refs @> jsonb_build_array(jsonb_build_object('skill_version_id', ${skillVersionId}::text))
      and ${readableProblemSql(sql, viewer)})`;
}

/** True when the ReviewProtocol `rp` supplies the SkillVersion `skillVersionId` to a review node. */
export function protocolUsesSkillSql(sql: Sql, skillVersionId: string): postgres.Fragment {
  return sql`rp.document->'nodes' @> jsonb_build_array(jsonb_build_object(
    'skills', jsonb_build_array(jsonb_build_object('skill_version_id', ${skillVersionId}::text))))`;
}

/**
 * The ids of every ReviewProtocol the viewer may read (not for administrators, who read all): the
 * protocols named by stages of Contracts that revisions the viewer may read pin, or that the
 * viewer published, and the viewer's own protocols. Built forward from the revisions with joins,
 * for use as a CTE when many protocols are tested at once; readableProtocolSql says the same for one.
 */
export function readableProtocolIdsSql(sql: Sql, viewer: Viewer | null): postgres.Fragment {
  const own =
    viewer === null
      ? sql``
      : sql`
    union
    select st->>'review_protocol_id' from verifier_contracts vc, jsonb_array_elements(vc.document->'stages') st
    where vc.publisher_user_id = ${viewer.userId}
    union
    select rp.id from review_protocols rp where rp.publisher_user_id = ${viewer.userId}`;
  return sql`
    select st->>'review_protocol_id' as id
    from problem_revisions r
      join problems p on p.id = r.problem_id
      left join campaigns c on c.id = p.campaign_id
      join verifier_contracts vc on vc.id = r.verifier_contract_id,
      jsonb_array_elements(vc.document->'stages') st
    where ${readableProblemSql(sql, viewer)} ${own}`;
}
