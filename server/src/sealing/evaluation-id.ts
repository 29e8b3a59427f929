import { hashJson } from "@svc/app";

/** A stored binding's identity, as the evaluation id covers it. */
export interface SealedBindingIdentity {
  key: string;
  content_hash: string;
}

/**
 * The `sev_` id of an evaluation (spec 2.3): the first 32 hex digits of the SHA-256 of the
 * canonical JSON of the complete sealed dataset (each sealed binding's key and content hash,
 * sorted by key) and the owners (sorted). Revisions with the same sealed data and owners share
 * it, and with it release state, quota and authority; anything else (statement, public inputs,
 * policy dates) does not split an evaluation.
 */
export function evaluationIdOf(
  sealedBindings: readonly SealedBindingIdentity[],
  ownerUserIds: readonly string[],
): string {
  const sealed = sealedBindings
    .map((b) => ({ key: b.key, content_hash: b.content_hash }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const owners = [...new Set(ownerUserIds)].sort();
  return `sev_${hashJson({ sealed, owners }).slice("sha256:".length, "sha256:".length + 32)}`;
}
