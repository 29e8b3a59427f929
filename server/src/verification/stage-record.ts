import type { RedactionReason, RuleOwner } from "@svc/schemas";
/** mechanism.sandbox (spec 2.4). */
export interface SandboxMechanism {
  verifier_implementation_id: string;
  implementation_content_hash: string;
  runtime_image_digest: string;
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

/** At most one member is non-null and matches the stage's kind; all null when nothing ran. */
export interface StageMechanism {
  sandbox: SandboxMechanism | null;
  review: ReviewMechanism | null;
  external: ExternalMechanism | null;
}

/** A stage's captured stdout and stderr (spec 2.4 `log`), as stored. */
export interface StageLog {
  content_hash: string;
  size_bytes: number;
  truncated: boolean;
  redaction: null | {
    redacted_at: string;
    redacted_by_user_id: string;
    reason: RedactionReason;
    original_content_hash: string;
    original_size_bytes: number;
  };
}
