import { hashJson } from "@svc/app";
import type { ReleaseState } from "./sealing-policy.ts";

/**
 * The acknowledgement fingerprint of an early release (spec 4.1): a digest over the evaluation
 * id, the exact affected revisions (sorted) and the current release state. Any new revision
 * joining the evaluation, or any release meanwhile, changes it, so an unseal acts only on what
 * the manager was shown.
 */
export function acknowledgementFingerprint(
  evaluationId: string,
  affectedRevisionIds: readonly string[],
  state: ReleaseState,
): string {
  return hashJson({
    evaluation_id: evaluationId,
    affected_revision_ids: [...affectedRevisionIds].sort(),
    unsealed_at: state.unsealed_at,
    release_event: state.release_event,
  });
}
