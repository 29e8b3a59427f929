import { type Campaign, toCampaign } from "../campaigns/campaign.ts";
import { readCampaign } from "../campaigns/read-campaign.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import { pageProblems } from "../problems/page-problems.ts";
import { type Problem, toProblem } from "../problems/problem.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { effectiveVisibilitySql } from "../visibility/visibility-sql.ts";

export interface GetCampaignResult {
  campaign: Campaign;
  open_problems: Problem[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  open_problems_cursor: string | null;
}

/**
 * get_campaign (spec 4.1): the Campaign the viewer names and a page of its open Problems in
 * priority order (highest `priority_weight` first, then slug). Naming the Campaign shows the
 * Problems that share its visibility; a Problem an exception restricts below the Campaign (for
 * example unlisted inside a listed Campaign) is shown only to its owner.
 */
export async function getCampaign(
  sql: Sql,
  viewer: Viewer | null,
  options: { campaign: string; limit: number; cursor?: string },
): Promise<GetCampaignResult> {
  const campaign = await readCampaign(sql, viewer, options.campaign);
  const fingerprint = cursorFingerprint({ campaign: campaign.id, open_problems: "priority" });
  const keys = [
    { expression: sql`-p.priority_weight`, type: "float8" as const },
    { expression: sql`p.slug collate "C"`, type: "text" as const },
  ];
  const after =
    options.cursor === undefined ? undefined : decodeCursor(options.cursor, fingerprint, keys.length).k;
  const page = await pageProblems(sql, {
    where: sql`p.campaign_id = ${campaign.id} and p.status = 'open' and p.current_revision_id is not null
      and (${effectiveVisibilitySql(sql)} = c.visibility or p.owner_user_id = ${viewer?.userId ?? null})`,
    keys,
    limit: options.limit,
    after,
  });
  return {
    campaign: toCampaign(campaign),
    open_problems: page.rows.map(toProblem),
    open_problems_cursor: page.next === null ? null : encodeCursor({ k: page.next, f: fingerprint }),
  };
}
