import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { acknowledgementFingerprint } from "./acknowledgement-fingerprint.ts";
import { evaluationRevisions } from "./evaluation-revision-ids.ts";
import { readSealedRevision, type SealedRevision } from "./read-sealed-revision.ts";
import { isLabelReleased } from "./release-times.ts";
import type { SealingPolicy } from "./sealing-policy.ts";

/** prepare_reference_release's result. */
export interface ReferenceReleasePlan {
  evaluation_id: string;
  /** Every revision sharing the evaluation: an early release unseals all of them. */
  affected_revisions: Array<{ problem_revision_id: string; problem_id: string; revision_number: number }>;
  sealed_until: string;
  unsealed_at: string | null;
  /** Whether the labels are already public (released early, or sealed_until reached). */
  released: boolean;
  acknowledgement_fingerprint: string;
}

/** The refusal for a revision without sealing. */
export function notSealedError(revisionId: string): ServiceError {
  return new ServiceError(
    "invalid_input",
    `revision ${revisionId} has no sealing: there is nothing to release`,
    {
      field: "revision_id",
      revision_id: revisionId,
    },
  );
}

/** Refuses anyone but the Problem's managers (owner, live administrators). */
export function requireManager(found: SealedRevision, tool: string): void {
  if (found.manager) return;
  throw new ServiceError(
    "forbidden",
    `${tool} is for the problem's managers (its owner and administrators); you do not manage ${found.problem.slug}`,
    { revision_id: found.revision.id },
  );
}

/**
 * prepare_reference_release (spec 4.1): what an early release of the revision's evaluation would
 * affect, and the fingerprint unseal_reference_inputs must be given back. Managers only; reads
 * nothing it does not show.
 */
export async function prepareReferenceRelease(
  sql: Sql,
  viewer: Viewer,
  revisionId: string,
  now: Date,
): Promise<ReferenceReleasePlan> {
  const found = await readSealedRevision(sql, viewer, revisionId, () => notSealedError(revisionId));
  requireManager(found, "prepare_reference_release");
  return await releasePlan(sql, found, now);
}

/** The plan for a sealed revision already read (unseal recomputes it under its lock). */
export async function releasePlan(sql: Sql, found: SealedRevision, now: Date): Promise<ReferenceReleasePlan> {
  const affected = await evaluationRevisions(sql, found.evaluationId, found.problem.owner_user_id);
  const sealing: SealingPolicy = found.sealing;
  return {
    evaluation_id: found.evaluationId,
    affected_revisions: affected,
    sealed_until: sealing.sealed_until,
    unsealed_at: sealing.unsealed_at,
    released: isLabelReleased(sealing, now),
    acknowledgement_fingerprint: acknowledgementFingerprint(
      found.evaluationId,
      affected.map((r) => r.problem_revision_id),
      { unsealed_at: sealing.unsealed_at, release_event: sealing.release_event },
    ),
  };
}
