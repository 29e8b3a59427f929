import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { type Campaign, toCampaign } from "./campaign.ts";
import type { CampaignRow } from "./campaign-row.ts";

/**
 * list_campaigns: active Campaigns that are listed, and the viewer's own whatever their
 * visibility (none for a visitor who is not signed in), newest first. Archived Campaigns stay readable by name but are not offered.
 */
export async function listCampaigns(sql: Sql, viewer: Viewer | null): Promise<{ campaigns: Campaign[] }> {
  const rows = await sql<CampaignRow[]>`
    select * from campaigns
    where status = 'active' and (visibility = 'listed' or owner_user_id = ${viewer?.userId ?? null})
    order by created_at desc, id`;
  return { campaigns: rows.map(toCampaign) };
}
