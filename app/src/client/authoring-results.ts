import { ReconciliationAction } from "@svc/schemas";

/**
 * The authoring tools' results as the CLI reads them (spec 4.1, "Authoring tools"). Only the
 * fields the CLI uses are typed; the service may send more.
 */

/** request_authoring_upload. */
export interface RequestedUpload {
  upload_id: string;
  upload_url: string;
  expires_at: string;
  max_bytes: number;
}

/** The reconciliation actions (spec section 3), from the schemas' closed set. */
export const ProblemAction = ReconciliationAction;
export type ProblemAction = ReconciliationAction;

export interface ReconciledProblem {
  slug: string;
  action: ProblemAction;
  problem_id?: string;
  current_revision_id?: string;
  next_revision_number?: number;
  reason?: string;
}

export type ActionCounts = Record<ProblemAction, number>;

export interface Reconciliation {
  campaign: { slug: string; action: string; campaign_id?: string } | null;
  problems: ReconciledProblem[];
  counts: ActionCounts;
  warnings: Array<{ code: string; slug: string; of: string }>;
}

export interface ValidationError {
  file: string;
  path: string;
  code: string;
  message: string;
}

/** validate_authoring_upload. */
export interface Validation {
  valid: boolean;
  errors: ValidationError[];
  notes: unknown[];
  plan_hash: string | null;
  reconciliation: Reconciliation | null;
}

export interface PublishedProblem {
  slug: string;
  problem_id: string;
  problem_revision_id: string;
  revision_number: number;
  visibility?: string;
  listed_in_explore?: boolean;
}

/** publish_authoring_upload. */
export interface Publication {
  campaign_id?: string;
  campaign?: unknown;
  problems: PublishedProblem[];
  skill_version_ids: string[];
  verifier_contract_ids: string[];
  verifier_implementation_ids: string[];
  review_protocol_ids: string[];
  counts: Partial<ActionCounts>;
}

export function emptyCounts(): ActionCounts {
  return { create: 0, update: 0, revise: 0, noop: 0, conflict: 0 };
}

/** Reads a validation envelope, tolerating absent lists (a service that sends fewer fields). */
export function readValidation(envelope: Record<string, unknown>): Validation {
  const r = envelope.reconciliation as Partial<Reconciliation> | null | undefined;
  return {
    valid: envelope.valid === true,
    errors: Array.isArray(envelope.errors) ? (envelope.errors as ValidationError[]) : [],
    notes: Array.isArray(envelope.notes) ? envelope.notes : [],
    plan_hash: typeof envelope.plan_hash === "string" ? envelope.plan_hash : null,
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
    campaign: envelope.campaign,
    problems: Array.isArray(envelope.problems) ? (envelope.problems as PublishedProblem[]) : [],
    skill_version_ids: list("skill_version_ids"),
    verifier_contract_ids: list("verifier_contract_ids"),
    verifier_implementation_ids: list("verifier_implementation_ids"),
    review_protocol_ids: list("review_protocol_ids"),
    counts: (envelope.counts as Partial<ActionCounts>) ?? {},
  };
}
