import type { ProblemStatus, Structure, Visibility } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { EFFECTIVE_VISIBILITY_SQL } from "../visibility/visibility-sql.ts";

/** A Problem as read paths select it: its row, its Campaign's slug and both visibilities. */
export interface ProblemRow {
  id: string;
  slug: string;
  owner_user_id: string;
  campaign_id: string | null;
  campaign_slug: string | null;
  structure: Structure;
  title: string;
  summary: string;
  priority_weight: number;
  status: ProblemStatus;
  /** The Problem's own visibility (an exception when it belongs to a Campaign). */
  own_visibility: Visibility;
  campaign_visibility: Visibility | null;
  /** What callers see: the lesser of the two. */
  visibility: Visibility;
  current_revision_id: string | null;
  current_revision_number: number;
  active_attempts: number;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The select list for {@link ProblemRow}, over `problems p left join campaigns c`. */
export function problemColumnsSql(sql: Sql): postgres.Fragment {
  return sql.unsafe(`p.id, p.slug, p.owner_user_id, p.campaign_id, c.slug as campaign_slug, p.structure,
    p.title, p.summary, p.priority_weight, p.status, p.visibility as own_visibility,
    c.visibility as campaign_visibility, ${EFFECTIVE_VISIBILITY_SQL} as visibility,
    p.current_revision_id, p.current_revision_number, p.active_attempts, p.archived_at, p.created_at,
    p.updated_at`);
}

/**
 * The ProblemRow fields of a row selected with problemColumnsSql and more columns, without the
 * others (field by field: an object rest pattern over a 20-column row costs more, on every read).
 */
export function problemRowOf(row: ProblemRow): ProblemRow {
  return {
    id: row.id,
    slug: row.slug,
    owner_user_id: row.owner_user_id,
    campaign_id: row.campaign_id,
    campaign_slug: row.campaign_slug,
    structure: row.structure,
    title: row.title,
    summary: row.summary,
    priority_weight: row.priority_weight,
    status: row.status,
    own_visibility: row.own_visibility,
    campaign_visibility: row.campaign_visibility,
    visibility: row.visibility,
    current_revision_id: row.current_revision_id,
    current_revision_number: row.current_revision_number,
    active_attempts: row.active_attempts,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A ProblemRow as PostgreSQL's JSON writes it (`to_jsonb` of the select list): times as strings. */
export type ProblemRowJson = Omit<ProblemRow, "archived_at" | "created_at" | "updated_at"> & {
  archived_at: string | null;
  created_at: string;
  updated_at: string;
};

/** The ProblemRow of its JSON form, for a Problem read inside another row's statement. */
export function problemRowOfJson(json: ProblemRowJson): ProblemRow {
  return {
    ...json,
    archived_at: json.archived_at === null ? null : new Date(json.archived_at),
    created_at: new Date(json.created_at),
    updated_at: new Date(json.updated_at),
  };
}
