import type { Plan, PlanProblem, ProblemReconciliation, ProblemStatus, Reconciliation } from "@svc/schemas";
import {
  TASK_COMPONENT_NAMES,
  type TaskComponents,
  taskComponents,
  taskFingerprint,
} from "./task-fingerprint.ts";

/**
 * Reconciliation (spec section 3): what publishing a plan would do to live state. A pure function
 * of the plan, a snapshot of the live records the plan names, and the caller; the service stores
 * its result with the validated upload and re-checks the snapshot before publishing.
 *
 * Per problem: create (no problem has the slug), noop (same effective task and metadata), update
 * (only title, summary or priority weight changed), revise (the effective task changed: a new
 * revision), conflict (another user owns the slug and the caller is not a live administrator, the
 * problem is archived, or an immutable property differs). Omission never deletes anything.
 */

/** A live Problem as the reconciliation needs it. */
export interface LiveProblem {
  problem_id: string;
  slug: string;
  owner_user_id: string;
  campaign_slug: string | null;
  status: ProblemStatus;
  structure: string;
  title: string;
  summary: string;
  priority_weight: number;
  current_revision_id: string;
  current_revision_number: number;
  /** The task components recorded when the current revision was published. */
  task: TaskComponents;
}

export interface LiveCampaign {
  campaign_id: string;
  slug: string;
  owner_user_id: string;
  title: string;
  summary: string;
  description_md: string;
  status: string;
}

export interface LiveState {
  campaign: LiveCampaign | null;
  /** Live problems whose slugs the plan names. */
  problems: ReadonlyMap<string, LiveProblem>;
  /** Fingerprints of the other live, open problems of the plan's campaign, by slug. */
  campaignFingerprints: ReadonlyMap<string, string>;
}

export interface Caller {
  user_id: string;
  /** Checked live when the snapshot is taken, never from token claims. */
  is_admin: boolean;
}

export function reconcile(plan: Plan, live: LiveState, caller: Caller): Reconciliation {
  const problems = plan.problems.map((problem) =>
    reconcileProblem(problem, live.problems.get(problem.slug), caller),
  );
  const counts = { create: 0, update: 0, revise: 0, noop: 0, conflict: 0 };
  for (const p of problems) counts[p.action] += 1;

  const warnings: Reconciliation["warnings"] = [];
  // With no other problem of the campaign live, no fingerprint can match: none is hashed.
  for (const [index, problem] of plan.problems.entries()) {
    if (live.campaignFingerprints.size === 0) break;
    if (problems[index]!.action !== "create") continue;
    const fingerprint = taskFingerprint(taskComponents(problem));
    for (const [slug, other] of live.campaignFingerprints) {
      if (other === fingerprint && slug !== problem.slug)
        warnings.push({ code: "possible_duplicate", slug: problem.slug, of: slug });
    }
  }
  return { campaign: reconcileCampaign(plan, live.campaign, caller), problems, counts, warnings };
}

function reconcileCampaign(
  plan: Plan,
  live: LiveCampaign | null,
  caller: Caller,
): Reconciliation["campaign"] {
  const planned = plan.campaign;
  if (!planned) return null;
  if (!live) return { slug: planned.slug, action: "create" };
  const base = { slug: planned.slug, campaign_id: live.campaign_id };
  if (live.owner_user_id !== caller.user_id && !caller.is_admin) {
    return { ...base, action: "conflict", reason: "another user owns this campaign slug" };
  }
  if (live.status === "archived") return { ...base, action: "conflict", reason: "the campaign is archived" };
  const changed = (["title", "summary", "description_md"] as const).filter(
    (field) => planned[field] !== live[field],
  );
  if (changed.length === 0) return { ...base, action: "reuse" };
  return { ...base, action: "update", reason: `${changed.join(", ")} changed` };
}

function reconcileProblem(
  problem: PlanProblem,
  live: LiveProblem | undefined,
  caller: Caller,
): ProblemReconciliation {
  if (!live) return { slug: problem.slug, action: "create", next_revision_number: 1 };
  const base = {
    slug: problem.slug,
    problem_id: live.problem_id,
    current_revision_id: live.current_revision_id,
  };
  if (live.owner_user_id !== caller.user_id && !caller.is_admin) {
    return {
      ...base,
      action: "conflict",
      reason: "another user owns this problem slug; choose another slug",
    };
  }
  if (live.status === "archived") {
    return {
      ...base,
      action: "conflict",
      reason: "the problem is archived and takes no new revisions; choose another slug",
    };
  }
  if (live.structure !== problem.structure) {
    return {
      ...base,
      action: "conflict",
      reason: `structure is immutable: live ${live.structure}, planned ${problem.structure}; publish it under a new slug`,
    };
  }
  if (live.campaign_slug !== problem.campaign_slug) {
    return {
      ...base,
      action: "conflict",
      reason: `the problem belongs to ${live.campaign_slug ? `campaign ${live.campaign_slug}` : "no campaign"}; a problem never moves between campaigns`,
    };
  }
  const planned = taskComponents(problem);
  const taskChanges = TASK_COMPONENT_NAMES.filter((name) => planned[name] !== live.task[name]);
  const metadataChanges = (["title", "summary", "priority_weight"] as const).filter(
    (field) => problem[field] !== live[field],
  );
  if (taskChanges.length > 0) {
    const also = metadataChanges.length > 0 ? `; ${metadataChanges.join(", ")} updated too` : "";
    return {
      ...base,
      action: "revise",
      next_revision_number: live.current_revision_number + 1,
      reason: `${taskChanges.join(", ")} changed${also}`,
    };
  }
  if (metadataChanges.length > 0)
    return { ...base, action: "update", reason: `${metadataChanges.join(", ")} changed` };
  return { ...base, action: "noop", reason: "unchanged" };
}
