import { ReconciliationAction } from "./enums.ts";

/**
 * The questions every party asks of a reconciliation (spec 4.1, publish_authoring_upload) and of
 * a publish refusal, answered once: the service when it validates and publishes, `svc draft`, the
 * GitHub App and the Action. Structural types, so the service's and the clients' reconciliation
 * records both fit.
 */
export interface ReconciliationLike {
  campaign: { action: string } | null;
  problems: ReadonlyArray<{ action: string }>;
  counts: { readonly [action: string]: number | undefined };
}

/** True when the campaign or any problem is in conflict: nothing of it may be published. */
export function hasConflicts(reconciliation: ReconciliationLike | null | undefined): boolean {
  if (!reconciliation) return false;
  return (
    (reconciliation.counts[ReconciliationAction.conflict] ?? 0) > 0 ||
    reconciliation.campaign?.action === ReconciliationAction.conflict ||
    reconciliation.problems.some((p) => p.action === ReconciliationAction.conflict)
  );
}

/**
 * True when publishing would create or change something: a problem created, updated or revised,
 * or the campaign created or updated. A reconciliation of noops changes nothing.
 */
export function changesSomething(reconciliation: ReconciliationLike | null | undefined): boolean {
  if (!reconciliation) return false;
  const { create = 0, update = 0, revise = 0 } = reconciliation.counts;
  const campaign = reconciliation.campaign?.action;
  return (
    create + update + revise > 0 ||
    campaign === ReconciliationAction.create ||
    campaign === ReconciliationAction.update
  );
}

/** publish_authoring_upload's refusals that mean "validate again" (spec section 7). */
export const STALE_CODES = ["stale_plan_hash", "stale_server_state"] as const;
export type StaleCode = (typeof STALE_CODES)[number];

/** True for a refusal that one fresh upload, validation and publication may answer. */
export function isStale(code: string): code is StaleCode {
  return (STALE_CODES as readonly string[]).includes(code);
}
