/**
 * Closed sets shared by code and schemas. Each is an `as const` object with its type derived from
 * it; the JSON Schemas in `schemas/json/` hold the same values, and a test checks they agree.
 */

/** A Problem's structure; immutable once published. */
export const Structure = { SOLVE: "SOLVE", BENCHMARK: "BENCHMARK", DISCOVERY: "DISCOVERY" } as const;
export type Structure = (typeof Structure)[keyof typeof Structure];

/** How a Contract stage is carried out. */
export const StageKind = { sandbox: "sandbox", review: "review", external: "external" } as const;
export type StageKind = (typeof StageKind)[keyof typeof StageKind];

/** What a Contract (or one sandbox stage) produces. */
export const ResultKind = { pass_fail: "pass_fail", score: "score" } as const;
export type ResultKind = (typeof ResultKind)[keyof typeof ResultKind];

/** Outcome of a VerificationRun or stage; `error` means the service's own machinery failed. */
export const RunResult = {
  verified: "verified",
  refuted: "refuted",
  inconclusive: "inconclusive",
  error: "error",
} as const;
export type RunResult = (typeof RunResult)[keyof typeof RunResult];

/** What a checker may report, and what a conformance fixture expects: never `error`. */
export const CheckerResult = {
  verified: "verified",
  refuted: "refuted",
  inconclusive: "inconclusive",
} as const;
export type CheckerResult = (typeof CheckerResult)[keyof typeof CheckerResult];

/** Status of a VerificationRun or stage result; forward-only. */
export const RunStatus = { queued: "queued", running: "running", finished: "finished" } as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/** What publishing a package does to one Problem (spec section 3). */
export const ReconciliationAction = {
  create: "create",
  update: "update",
  revise: "revise",
  noop: "noop",
  conflict: "conflict",
} as const;
export type ReconciliationAction = (typeof ReconciliationAction)[keyof typeof ReconciliationAction];

/** Why a VerificationRun was queued (spec 2.4 `trigger`). */
export const RunTrigger = { submission: "submission", rerun: "rerun", manual: "manual" } as const;
export type RunTrigger = (typeof RunTrigger)[keyof typeof RunTrigger];

/** Outcome of reproducing a Contract's conformance fixtures (spec section 3). */
export const ConformanceStatus = { pending: "pending", passed: "passed", failed: "failed" } as const;
export type ConformanceStatus = (typeof ConformanceStatus)[keyof typeof ConformanceStatus];

/**
 * Whether a validation's `conformance` is whole: `pending` while its sandboxed fixtures wait in the
 * host's sandbox budget (revalidate to read them), `complete` once every fixture that can run here has.
 */
export const ValidationConformanceState = { pending: "pending", complete: "complete" } as const;
export type ValidationConformanceState =
  (typeof ValidationConformanceState)[keyof typeof ValidationConformanceState];

/** Who owns an external stage's rule: the Contract's author or the partner system. */
export const RuleOwner = { contract: "contract", partner: "partner" } as const;
export type RuleOwner = (typeof RuleOwner)[keyof typeof RuleOwner];

/** How a Contract's score ranks. */
export const ScoreDirection = {
  higher_is_better: "higher_is_better",
  lower_is_better: "lower_is_better",
} as const;
export type ScoreDirection = (typeof ScoreDirection)[keyof typeof ScoreDirection];

/** Why an operator redacted a stage log (spec 2.4). */
export const RedactionReason = {
  secret_material: "secret_material",
  personal_data: "personal_data",
  legal_requirement: "legal_requirement",
} as const;
export type RedactionReason = (typeof RedactionReason)[keyof typeof RedactionReason];

/** Why a run is attested (docs/attestations.md): it finished, was revoked, or had a stage log redacted. */
export const AttestationReason = {
  finished: "finished",
  revoked: "revoked",
  log_redacted: "log_redacted",
} as const;
export type AttestationReason = (typeof AttestationReason)[keyof typeof AttestationReason];

/**
 * Sandbox image states (spec section 3, get_sandbox_image_status). `unbound` is a script runtime
 * not yet enabled on the deployment: computed live, never stored.
 */
export const ImageState = {
  registered: "registered",
  provisioning: "provisioning",
  available: "available",
  provisioning_failed: "provisioning_failed",
  unbound: "unbound",
} as const;
export type ImageState = (typeof ImageState)[keyof typeof ImageState];

/** The container engines an operator binds a script runtime to. */
export const RuntimeBackend = { docker: "docker", bwrap: "bwrap" } as const;
export type RuntimeBackend = (typeof RuntimeBackend)[keyof typeof RuntimeBackend];
