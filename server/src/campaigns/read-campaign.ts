import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";
import type { CampaignRow } from "./campaign-row.ts";
import { findCampaign } from "./find-campaign.ts";

/** The Campaign the viewer names, when they may read it; not_found otherwise, never a guess. */
export async function readCampaign(sql: Sql, viewer: Viewer | null, reference: string): Promise<CampaignRow> {
  const row = await findCampaign(sql, reference);
  if (!row || !canReadWork(viewer, row)) {
    throw new ServiceError("not_found", `no campaign has the id or slug "${reference}"`, {
      campaign: reference,
    });
  }
  return row;
}
