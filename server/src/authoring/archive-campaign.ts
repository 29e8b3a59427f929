import { Capability, Scope } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import type { Principal } from "../users/principal.ts";
import { requireCapability } from "../users/require-capability.ts";
import { requireScope } from "../users/require-scope.ts";
import { recordWorkAudit } from "../work/record-work-audit.ts";
import { findOwnedWork } from "./find-owned-work.ts";

export interface ArchivedCampaign {
  campaign: {
    campaign_id: string;
    slug: string;
    status: "archived";
    /** How many open Problems this call archived with the Campaign (0 when it was archived already). */
    archived_problems: number;
    archived_at: string;
  };
}

/**
 * archive_campaign (spec 4.1): the owner, holding the author capability now, archives a Campaign
 * for good, and its open Problems with it; they take no new Attempts. Archiving an archived
 * Campaign changes nothing and returns it as it is.
 */
export async function archiveCampaign(
  services: Services,
  principal: Principal,
  input: { campaign: string },
): Promise<ArchivedCampaign> {
  requireScope(principal, Scope.contribute);
  const userId = principal.user.id;
  await requireCapability(services.sql, userId, Capability.author);
  return await services.sql.begin(async (tx) => {
    const campaign = await findOwnedWork(tx, "campaign", input.campaign, userId);
    if (campaign.archived_at) {
      return shape(campaign.id, campaign.slug, 0, campaign.archived_at);
    }
    const now = services.clock();
    await tx`update campaigns set status = 'archived', archived_at = ${now}, updated_at = ${now} where id = ${campaign.id}`;
    const problems = await tx<{ id: string }[]>`
      update problems set status = 'archived', archived_at = ${now}, updated_at = ${now}
      where campaign_id = ${campaign.id} and status = 'open'
      returning id`;
    await recordWorkAudit(
      tx,
      userId,
      null,
      [
        { action: "archive", subject_kind: "campaign", subject_id: campaign.id },
        ...problems.map((p) => ({
          action: "archive",
          subject_kind: "problem" as const,
          subject_id: p.id,
          detail: { with_campaign: campaign.id },
        })),
      ],
      now,
    );
    return shape(campaign.id, campaign.slug, problems.length, now);
  });
}

function shape(id: string, slug: string, archivedProblems: number, at: Date): ArchivedCampaign {
  return {
    campaign: {
      campaign_id: id,
      slug,
      status: "archived",
      archived_problems: archivedProblems,
      archived_at: at.toISOString(),
    },
  };
}
