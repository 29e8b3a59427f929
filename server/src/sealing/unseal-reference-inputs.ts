import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { notSealedError, releasePlan, requireManager } from "./prepare-reference-release.ts";
import { readSealedRevision } from "./read-sealed-revision.ts";
import { readSealing } from "./read-sealing.ts";
import type { ReleaseEvent, SealingPolicy } from "./sealing-policy.ts";

/** unseal_reference_inputs' input (spec 4.1). */
export interface UnsealInput {
  revision_id: string;
  reason_md: string;
  acknowledgement_fingerprint?: string | undefined;
}

/**
 * unseal_reference_inputs (spec 4.1, 6.2): ends sealing early for the whole evaluation, for good.
 * "Explicit user authorization" here means all of: a token with the contribute scope (the user
 * granted this client the right to act), a live manager check (owner or administrator now), and
 * the acknowledgement fingerprint from prepare_reference_release, which proves the caller was
 * shown the exact affected revisions and the current release state. The evaluation row is locked
 * and the fingerprint recomputed under the lock, so a revision published meanwhile, or a
 * concurrent release, makes it stale. Every affected revision then reads the same unsealed_at and
 * release_event (the initiating manager and reason), the shared-hash cascade of spec 6.2.
 */
export async function unsealReferenceInputs(
  sql: Sql,
  viewer: Viewer,
  input: UnsealInput,
  now: Date,
  /**
   * Called in the release's transaction with the revisions it unsealed; the caller writes what
   * follows from it (criteria changes: agents/record-inputs-released.ts, which sealing may not import).
   */
  onReleased?: (tx: Sql, released: { revisionIds: string[]; reason: string; at: Date }) => Promise<unknown>,
): Promise<{ sealing: SealingPolicy; affected_revision_ids: string[] }> {
  return await inTransaction(sql, async (tx) => {
    const found = await readSealedRevision(tx, viewer, input.revision_id, () =>
      notSealedError(input.revision_id),
    );
    requireManager(found, "unseal_reference_inputs");
    if (!input.acknowledgement_fingerprint) {
      throw new ServiceError(
        "stale_acknowledgement",
        "acknowledgement_fingerprint is missing: call prepare_reference_release, review the affected revisions, and pass its acknowledgement_fingerprint",
        { field: "acknowledgement_fingerprint", reason: "missing" },
      );
    }
    await tx`
      insert into sealed_evaluations (evaluation_id, created_at) values (${found.evaluationId}, ${now})
      on conflict (evaluation_id) do nothing`;
    await tx`select 1 from sealed_evaluations where evaluation_id = ${found.evaluationId} for update`;
    // Re-read under the lock: a concurrent release committed before it is seen now.
    const locked = {
      ...found,
      sealing: (await readSealing(tx, found.revision, found.problem.owner_user_id))!,
    };
    const plan = await releasePlan(tx, locked, now);
    if (plan.released) {
      throw new ServiceError(
        "already_unsealed",
        `evaluation ${plan.evaluation_id} is already released (${plan.unsealed_at ? `early, at ${plan.unsealed_at}` : `at sealed_until ${plan.sealed_until}`}); unsealing is irreversible and happens once`,
        { evaluation_id: plan.evaluation_id, unsealed_at: plan.unsealed_at, sealed_until: plan.sealed_until },
      );
    }
    if (plan.acknowledgement_fingerprint !== input.acknowledgement_fingerprint) {
      throw new ServiceError(
        "stale_acknowledgement",
        "acknowledgement_fingerprint is stale: the affected revisions or the release state changed since prepare_reference_release; call it again and review what would be released",
        { field: "acknowledgement_fingerprint", reason: "stale", evaluation_id: plan.evaluation_id },
      );
    }
    const event: ReleaseEvent = {
      unsealed_at: now.toISOString(),
      user_id: viewer.userId,
      reason_md: input.reason_md,
    };
    await tx`
      update sealed_evaluations set unsealed_at = ${now}, release_event = ${tx.json(event as never)}
      where evaluation_id = ${found.evaluationId}`;
    const sealing = (await readSealing(tx, found.revision, found.problem.owner_user_id))!;
    const revisionIds = plan.affected_revisions.map((r) => r.problem_revision_id);
    await onReleased?.(tx, { revisionIds, reason: input.reason_md, at: now });
    return { sealing, affected_revision_ids: revisionIds };
  });
}
