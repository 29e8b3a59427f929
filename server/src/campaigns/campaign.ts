import type { Visibility } from "@svc/schemas";
import type { CampaignRow } from "./campaign-row.ts";

/** The canonical Campaign object every read returns (docs/architecture.md, "Reads and visibility"). */
export interface Campaign {
  id: string;
  slug: string;
  title: string;
  summary: string;
  description_md: string;
  status: CampaignRow["status"];
  visibility: Visibility;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** The canonical Campaign of a row, with timestamps in RFC 3339 UTC. */
export function toCampaign(row: CampaignRow): Campaign {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    description_md: row.description_md,
    status: row.status,
    visibility: row.visibility,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    archived_at: row.archived_at?.toISOString() ?? null,
  };
}
