import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { CampaignRow } from "./campaign-row.ts";

const CAMPAIGN_ID = idPattern(IdPrefix.campaign);

/** The Campaign a caller names by `cmp_` id or by slug, whatever its visibility, or null. */
export async function findCampaign(sql: Sql, reference: string): Promise<CampaignRow | null> {
  const byId = CAMPAIGN_ID.test(reference);
  const [row] = await sql<CampaignRow[]>`
    select * from campaigns where ${byId ? sql`id = ${reference}` : sql`slug = ${reference}`}`;
  return row ?? null;
}
