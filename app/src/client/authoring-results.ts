import {
  type ProblemReconciliation,
  type PublishedProblem,
  type PublishResult,
  type Reconciliation,
  ReconciliationAction,
  type ValidationConformance,
  type ValidationError,
  type ValidationResult,
} from "@svc/schemas";

/**
 * The authoring tools' results as the CLI reads them (spec 4.1, "Authoring tools"). The wire types
 * are the schemas' (declared once, built by the service); the readers below tolerate a service
 * that sends fewer fields.
 */

export type ReconciledProblem = ProblemReconciliation;

export type ActionCounts = Reconciliation["counts"];

/** validate_authoring_upload, the fields the CLI reads. */
export type Validation = Pick<
  ValidationResult,
  "valid" | "errors" | "notes" | "plan_hash" | "reconciliation" | "conformance"
>;

/** The fixtures a planned checker failed at validation: the checker fails its own conformance. */
export function failedConformance(validation: Pick<Validation, "conformance">): ValidationConformance[] {
  return validation.conformance.filter((entry) => !entry.passed);
}

/** publish_authoring_upload; counts may be partial from an older service. */
export type Publication = Omit<PublishResult, "counts" | "reconciliation"> & {
  counts: Partial<ActionCounts>;
};

export function emptyCounts(): ActionCounts {
  return Object.fromEntries(Object.values(ReconciliationAction).map((action) => [action, 0])) as ActionCounts;
}

/** Reads a validation envelope, tolerating absent lists (a service that sends fewer fields). */
export function readValidation(envelope: Record<string, unknown>): Validation {
  const r = envelope.reconciliation as Partial<Reconciliation> | null | undefined;
  return {
    valid: envelope.valid === true,
    errors: Array.isArray(envelope.errors) ? (envelope.errors as ValidationError[]) : [],
    notes: Array.isArray(envelope.notes) ? (envelope.notes as Validation["notes"]) : [],
    plan_hash: typeof envelope.plan_hash === "string" ? envelope.plan_hash : null,
    conformance: Array.isArray(envelope.conformance)
      ? (envelope.conformance as Partial<ValidationConformance>[]).map(readConformanceEntry)
      : [],
    reconciliation: r
      ? {
          campaign: r.campaign ?? null,
          problems: r.problems ?? [],
          counts: { ...emptyCounts(), ...r.counts },
          warnings: r.warnings ?? [],
        }
      : null,
  };
}

/** Reads a publication envelope. */
export function readPublication(envelope: Record<string, unknown>): Publication {
  const list = (key: string) => (Array.isArray(envelope[key]) ? (envelope[key] as string[]) : []);
  return {
    campaign_id: typeof envelope.campaign_id === "string" ? envelope.campaign_id : undefined,
    campaign: envelope.campaign as Publication["campaign"],
    problems: Array.isArray(envelope.problems) ? (envelope.problems as PublishedProblem[]) : [],
    skill_version_ids: list("skill_version_ids"),
    verifier_contract_ids: list("verifier_contract_ids"),
    verifier_implementation_ids: list("verifier_implementation_ids"),
    review_protocol_ids: list("review_protocol_ids"),
    counts: (envelope.counts as Partial<ActionCounts>) ?? {},
  };
}

/** A conformance entry, with the fields an older service does not send filled in. */
function readConformanceEntry(entry: Partial<ValidationConformance>): ValidationConformance {
  return {
    stage_key: entry.stage_key ?? "",
    image_ref: entry.image_ref ?? "",
    fixture: entry.fixture ?? "",
    expected: entry.expected ?? "verified",
    actual: entry.actual ?? "error",
    passed: entry.passed === true,
    implementation: entry.implementation ?? "",
    program: entry.program ?? null,
    detail: entry.detail ?? "",
    log_tail: entry.log_tail ?? "",
  };
}
