import type { RedactionReason, RuleOwner } from "@svc/schemas";
/** mechanism.sandbox (spec 2.4). */
export interface SandboxMechanism {
  verifier_implementation_id: string;
  implementation_content_hash: string;
  runtime_image_digest: string;
  /** The OCI ChainID of the bytes that ran (docs/attestations.md); null: a builtin or the host's interpreter. */
  runtime_bytes_digest?: string | null;
  backend: string;
  exit_code: number | null;
  duration_ms: number | null;
  evidence_hash: string | null;
}

/** mechanism.review (spec 2.4). */
export interface ReviewMechanism {
  review_process_id: string;
  protocol_hash: string;
  review_protocol_id?: string;
}

/** mechanism.external (spec 2.4). */
export interface ExternalMechanism {
  system: string;
  reference: string;
  rule_owner: RuleOwner;
  evidence_hash: string | null;
  attested_by_user_id: string;
  attested_at: string;
}

/**
 * Exactly one member is non-null, the one matching the stage's kind (spec 2.4). A stage has one
 * from the moment its mechanism is fixed: a sandbox stage when its implementation starts on a
 * resolved image (exit_code, duration_ms and evidence_hash null until it ends), a review stage
 * when its ReviewProcess starts, an external stage when it is attested. Until then, and for a
 * stage the service never executed (no runnable implementation, an unbound runtime, a wait or an
 * attestation deadline that ran out, the machinery failing before it began), the stored
 * mechanism is null and the record does not list the stage: stage_results holds the stages
 * attempted (docs/verification.md, "Stages without a mechanism").
 */
export interface StageMechanism {
  sandbox: SandboxMechanism | null;
  review: ReviewMechanism | null;
  external: ExternalMechanism | null;
}

/** Whether a stored mechanism names what ran (one member set), so the stage belongs in the record. */
export function hasMechanism(mechanism: StageMechanism | null): mechanism is StageMechanism {
  return mechanism !== null && (mechanism.sandbox ?? mechanism.review ?? mechanism.external) !== null;
}

/** A stage's captured stdout and stderr (spec 2.4 `log`), as stored. */
export interface StageLog {
  content_hash: string;
  size_bytes: number;
  truncated: boolean;
  redaction: null | {
    redacted_at: string;
    /** Null: an operator with svc-server. */
    redacted_by_user_id: string | null;
    reason: RedactionReason;
    original_content_hash: string;
    original_size_bytes: number;
  };
}
