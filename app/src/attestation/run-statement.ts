import { createHash } from "node:crypto";
import type { AttestationReason, StageKind } from "@svc/schemas";
import { canonicalJson } from "../hash/sha256.ts";

/**
 * The in-toto Statement (v1, github.com/in-toto/attestation) svc signs for every verification
 * run, and its predicate: a documented, versioned type of ours (docs/attestations.md). A new
 * version gets a new predicateType; a field is never repurposed.
 */
export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const RUN_PREDICATE_TYPE = "https://svc.dev/attestations/verification-run/v1";

/** A withheld value: sha256 over a random nonce and the value's canonical JSON (opened once released). */
export interface Commitment {
  commitment: `sha256:${string}`;
}

/** What opens a commitment: the nonce (base64) and the value it hides. */
export interface Opening {
  nonce: string;
  value: unknown;
}

export type Maybe<T> = T | Commitment;

export interface RunStatement {
  _type: typeof STATEMENT_TYPE;
  subject: Array<{ name: string; digest: { sha256: string } }>;
  predicateType: typeof RUN_PREDICATE_TYPE;
  predicate: RunPredicate;
}

export interface RunPredicate {
  /** Why this attestation: the run finished, was revoked, or had a stage log redacted. */
  reason: AttestationReason;
  /** The attestation this one follows (same run, or the Submission's earlier run for a rerun). */
  supersedes: { log_index: number; payload_sha256: string } | null;
  issued_at: string;
  run: {
    verification_run_id: string;
    submission_id: string;
    attempt_id: string;
    trigger: string;
    result: Maybe<string | null>;
    score: Maybe<number | null>;
    created_at: string;
    started_at: string | null;
    finished_at: string | null;
    revocation: { revoked_at: string; reason_sha256: string } | null;
  };
  problem: { problem_id: string; problem_revision_id: string; revision_number: number; sealed: boolean };
  verifier_contract: { verifier_contract_id: string; content_hash: string };
  /** The reference inputs the revision binds to its stages. */
  reference_inputs: Array<{ key: string; content_hash: Maybe<string>; size_bytes: Maybe<number> }>;
  stages: RunPredicateStage[];
}

export interface RunPredicateStage {
  stage_key: string;
  kind: StageKind;
  result: Maybe<string | null>;
  score: Maybe<number | null>;
  sandbox: null | {
    verifier_implementation_id: string;
    implementation_content_hash: string;
    /** The catalogue digest the contract names (spec 2.4). */
    runtime_image_digest: string;
    /** The digest of the image bytes that ran (a bound image's config digest); null: the host's interpreter. */
    runtime_bytes_digest: string | null;
    backend: string;
    exit_code: Maybe<number | null>;
    evidence_hash: Maybe<string | null>;
  };
  review: null | {
    review_process_id: string;
    protocol_hash: string;
    outcome: Maybe<string | null>;
    reduction_sha256: Maybe<string>;
  };
  external: null | {
    system: string;
    reference: string;
    rule_owner: string;
    evidence_hash: string | null;
    attested_by_user_id: string;
    attested_at: string;
  };
  log: null | { content_hash: Maybe<string>; redacted: boolean };
}

/** sha256 over the nonce and the value's canonical JSON (docs/attestations.md "Withheld values"). */
export function commitmentOf(nonce: Uint8Array, value: unknown): `sha256:${string}` {
  return `sha256:${createHash("sha256").update(nonce).update(canonicalJson(value)).digest("hex")}`;
}
