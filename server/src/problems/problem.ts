import type { Visibility } from "@svc/schemas";
import type { ProblemRow } from "./problem-row.ts";

/**
 * The canonical Problem object every read returns (docs/architecture.md, "Reads and
 * visibility"). `visibility` is the effective one; the Problem's own exception is shown only to
 * its managers through get_work_management. No delivery URIs are mixed in.
 */
export interface Problem {
  id: string;
  slug: string;
  title: string;
  summary: string;
  structure: ProblemRow["structure"];
  priority_weight: number;
  status: ProblemRow["status"];
  campaign_id: string | null;
  campaign_slug: string | null;
  current_revision_id: string | null;
  current_revision_number: number;
  visibility: Visibility;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** The canonical Problem of a row, with timestamps in RFC 3339 UTC. */
export function toProblem(row: ProblemRow): Problem {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    structure: row.structure,
    priority_weight: row.priority_weight,
    status: row.status,
    campaign_id: row.campaign_id,
    campaign_slug: row.campaign_slug,
    current_revision_id: row.current_revision_id,
    current_revision_number: row.current_revision_number,
    visibility: row.visibility,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    archived_at: row.archived_at?.toISOString() ?? null,
  };
}
