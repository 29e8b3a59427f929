import type { Plan, ProblemReconciliation, Reconciliation } from "@svc/schemas";
import type { LiveCampaignRow } from "./read-live-state.ts";
import type { Caller } from "./reconcile.ts";

/**
 * A standalone problem.json may name an existing Campaign (`campaign`); the pure reconciliation
 * only knows the package's own campaign.json, so this adds the conflicts such a name brings: the
 * Campaign does not exist, another user owns it (and the caller is not a live administrator), or
 * it is archived. Returns the reconciliation with those problems turned into conflicts.
 */
export function checkNamedCampaigns(
  plan: Plan,
  reconciliation: Reconciliation,
  campaigns: ReadonlyMap<string, LiveCampaignRow>,
  caller: Caller,
): Reconciliation {
  const own = plan.campaign?.slug ?? null;
  const problems = reconciliation.problems.map((entry, index): ProblemReconciliation => {
    const slug = plan.problems[index]!.campaign_slug;
    if (slug === null || slug === own || entry.action === "conflict") return entry;
    const campaign = campaigns.get(slug);
    const reason = !campaign
      ? `problem.json names campaign ${slug}, which does not exist: publish its campaign.json first or remove the key`
      : campaign.owner_user_id !== caller.user_id && !caller.is_admin
        ? `campaign ${slug} belongs to another user; publish the problem on its own or under your own campaign`
        : campaign.status === "archived"
          ? `campaign ${slug} is archived and takes no new problems`
          : null;
    if (reason === null) return entry;
    const { next_revision_number: _next, ...rest } = entry;
    return { ...rest, action: "conflict", reason };
  });
  const counts = { create: 0, update: 0, revise: 0, noop: 0, conflict: 0 };
  for (const p of problems) counts[p.action] += 1;
  return { ...reconciliation, problems, counts };
}
