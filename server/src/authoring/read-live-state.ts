import type { Plan, Visibility } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { LiveCampaign, LiveProblem, LiveState } from "./reconcile.ts";
import type { TaskComponents } from "./task-fingerprint.ts";

/** What publication must find unchanged about a Campaign the plan names (null: it must not exist). */
export interface CampaignKey {
  campaign_id: string;
  owner_user_id: string;
  status: string;
}

/** What publication must find unchanged about a Problem the plan names (null: it must not exist). */
export interface ProblemKey {
  problem_id: string;
  owner_user_id: string;
  status: string;
  current_revision_id: string;
  current_revision_number: number;
}

/**
 * The part of live state a reconciliation depends on, by slug: stored with the validation and
 * compared, under row locks, at publication (spec 4.1: "before mutating it verifies every affected
 * Campaign and Problem still has the owner and current revision the validator saw").
 */
export interface LiveSnapshot {
  campaigns: Record<string, CampaignKey | null>;
  problems: Record<string, ProblemKey | null>;
}

export interface LiveCampaignRow extends LiveCampaign {
  visibility: Visibility;
}

export interface LiveProblemRow extends LiveProblem {
  campaign_id: string | null;
  visibility: Visibility;
}

/** Live state as the reconciliation and publication need it. */
export interface LiveRead {
  /** The reconciliation's view (the package's own Campaign as `campaign`). */
  live: LiveState;
  /** Every Campaign the plan names, the package's and those a problem.json names, by slug. */
  campaigns: ReadonlyMap<string, LiveCampaignRow>;
  problems: ReadonlyMap<string, LiveProblemRow>;
  snapshot: LiveSnapshot;
}

/** The Campaign slugs a plan names: campaign.json's and every problem's `campaign_slug`. */
export function campaignSlugsOf(plan: Plan): string[] {
  const slugs = new Set<string>();
  if (plan.campaign) slugs.add(plan.campaign.slug);
  for (const problem of plan.problems) if (problem.campaign_slug) slugs.add(problem.campaign_slug);
  return [...slugs].sort();
}

/**
 * Reads the live records a plan names. With `lock`, inside a transaction, the rows found stay
 * locked until it ends (Campaigns first, then Problems in slug order, so concurrent publications
 * lock in one order and never deadlock); slugs not found are guarded by their unique indexes.
 */
export async function readLiveState(
  sql: Sql,
  plan: Plan,
  options: { lock?: boolean } = {},
): Promise<LiveRead> {
  const campaignSlugs = campaignSlugsOf(plan);
  const problemSlugs = plan.problems.map((p) => p.slug).sort();
  const lockCampaigns = options.lock ? sql`for update` : sql``;
  const lockProblems = options.lock ? sql`for update of p` : sql``;

  const campaignRows = await sql<LiveCampaignRow[]>`
    select id as campaign_id, slug, owner_user_id, title, summary, description_md, status, visibility
    from campaigns where slug = any(${campaignSlugs}) order by slug ${lockCampaigns}`;
  const problemRows = await sql<LiveProblemRow[]>`
    select p.id as problem_id, p.slug, p.owner_user_id, c.slug as campaign_slug, p.campaign_id, p.status,
      p.structure, p.title, p.summary, p.priority_weight, coalesce(p.current_revision_id, '') as current_revision_id,
      p.current_revision_number, p.task_components as task, p.visibility
    from problems p left join campaigns c on c.id = p.campaign_id
    where p.slug = any(${problemSlugs}) order by p.slug ${lockProblems}`;
  // Open problems of the named Campaigns, for the possible_duplicate warning.
  const fingerprints = await sql<{ slug: string; task_fingerprint: string }[]>`
    select p.slug, p.task_fingerprint from problems p join campaigns c on c.id = p.campaign_id
    where c.slug = any(${campaignSlugs}) and p.status = 'open' and p.task_fingerprint is not null
    order by p.slug`;

  const campaigns = new Map(campaignRows.map((c) => [c.slug, c]));
  const problems = new Map(
    problemRows.map((p) => [p.slug, { ...p, task: p.task as TaskComponents }] as const),
  );
  const snapshot: LiveSnapshot = { campaigns: {}, problems: {} };
  for (const slug of campaignSlugs) {
    const c = campaigns.get(slug);
    snapshot.campaigns[slug] = c
      ? { campaign_id: c.campaign_id, owner_user_id: c.owner_user_id, status: c.status }
      : null;
  }
  for (const slug of problemSlugs) {
    const p = problems.get(slug);
    snapshot.problems[slug] = p
      ? {
          problem_id: p.problem_id,
          owner_user_id: p.owner_user_id,
          status: p.status,
          current_revision_id: p.current_revision_id,
          current_revision_number: p.current_revision_number,
        }
      : null;
  }
  return {
    live: {
      campaign: plan.campaign ? (campaigns.get(plan.campaign.slug) ?? null) : null,
      problems,
      campaignFingerprints: new Map(fingerprints.map((f) => [f.slug, f.task_fingerprint])),
    },
    campaigns,
    problems,
    snapshot,
  };
}

/**
 * What changed between the snapshot validation saw and the one publication reads, one sentence
 * per difference; empty when publication may go ahead.
 */
export function staleDifferences(before: LiveSnapshot, after: LiveSnapshot): string[] {
  const differences: string[] = [];
  const compare = <K extends object>(
    kind: string,
    was: Record<string, K | null>,
    now: Record<string, K | null>,
  ) => {
    for (const slug of new Set([...Object.keys(was), ...Object.keys(now)])) {
      const a = was[slug] ?? null;
      const b = now[slug] ?? null;
      if (a === null && b === null) continue;
      if (a === null) differences.push(`${kind} ${slug} was created by someone else since validation`);
      else if (b === null) differences.push(`${kind} ${slug} no longer exists`);
      else {
        for (const field of Object.keys(a) as Array<keyof K>) {
          if (a[field] !== b[field]) {
            differences.push(
              `${kind} ${slug}: ${String(field)} was ${String(a[field])}, is now ${String(b[field])}`,
            );
          }
        }
      }
    }
  };
  compare("campaign", before.campaigns, after.campaigns);
  compare("problem", before.problems, after.problems);
  return differences;
}
