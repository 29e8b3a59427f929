import type { CampaignAction, Reconciliation, Visibility } from "@svc/schemas";
import { IdPrefix } from "@svc/schemas";
import { randomId } from "../core/ids/random-id.ts";
import type { PublishContext } from "./publish-context.ts";
import type { LiveRead } from "./read-live-state.ts";

/** A Campaign as the problems of a publication see it. */
export interface CampaignPlacement {
  campaign_id: string;
  slug: string;
  status: string;
  visibility: Visibility;
}

/**
 * Step 5: the package's Campaign. create: owned by the publisher, active and private; update:
 * title, summary and description as planned (owner and visibility never change); reuse: nothing.
 * Returns the package's Campaign (null without campaign.json) and every Campaign the plan's
 * problems belong to, by slug.
 */
export async function publishCampaign(
  ctx: PublishContext,
  reconciliation: Reconciliation,
  live: LiveRead,
): Promise<{
  own: (CampaignPlacement & { action: CampaignAction }) | null;
  bySlug: Map<string, CampaignPlacement>;
}> {
  const { tx, plan } = ctx;
  const bySlug = new Map<string, CampaignPlacement>();
  for (const [slug, c] of live.campaigns) {
    bySlug.set(slug, { campaign_id: c.campaign_id, slug, status: c.status, visibility: c.visibility });
  }
  const planned = plan.campaign;
  const action = reconciliation.campaign;
  if (!planned || !action) return { own: null, bySlug };

  switch (action.action) {
    case "create": {
      const id = randomId(IdPrefix.campaign);
      await tx`
        insert into campaigns (id, slug, owner_user_id, title, summary, description_md, authored_status, created_by_upload_id)
        values (${id}, ${planned.slug}, ${ctx.userId}, ${planned.title}, ${planned.summary}, ${planned.description_md},
          ${planned.status}, ${ctx.uploadId})`;
      bySlug.set(planned.slug, {
        campaign_id: id,
        slug: planned.slug,
        status: "active",
        visibility: "private",
      });
      ctx.audit.push({
        action: "create",
        subject_kind: "campaign",
        subject_id: id,
        detail: { slug: planned.slug },
      });
      break;
    }
    case "update": {
      const id = action.campaign_id!;
      await tx`
        update campaigns set title = ${planned.title}, summary = ${planned.summary},
          description_md = ${planned.description_md}, authored_status = ${planned.status}, updated_at = ${ctx.now}
        where id = ${id}`;
      ctx.audit.push({
        action: "update",
        subject_kind: "campaign",
        subject_id: id,
        detail: { reason: action.reason ?? null },
      });
      break;
    }
    case "reuse":
      break;
    case "conflict":
      // Validation marks an upload with a conflict invalid, and publication refuses invalid uploads.
      throw new Error(`campaign ${planned.slug} is in conflict; validation should have refused it`);
    default: {
      const never: never = action.action;
      throw new Error(`Unhandled campaign action: ${never}`);
    }
  }
  const own = bySlug.get(planned.slug)!;
  return { own: { ...own, action: action.action }, bySlug };
}
