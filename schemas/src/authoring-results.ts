import type {
  CheckerResult,
  ImageState,
  ReconciliationAction,
  RunResult,
  ValidationConformanceState,
} from "./enums.ts";
import type { LintCode, NoteCode, ReconciliationWarningCode, TreeErrorCode } from "./error-catalogue.ts";
import type { Plan } from "./types.ts";
import type { CampaignAction, Visibility } from "./work-enums.ts";

/**
 * The authoring tools' results on the wire (spec 4.1, "Authoring tools"): what the service returns
 * and stores, and what the CLI reads. Declared once here; the service builds them and the client
 * reads them tolerantly (a service may send more fields, or fewer).
 */

/** request_authoring_upload. */
export interface RequestedUpload {
  upload_id: string;
  upload_url: string;
  expires_at: string;
  max_bytes: number;
}

/** What reconciliation decided for one Problem of the plan. */
export interface ProblemReconciliation {
  slug: string;
  action: ReconciliationAction;
  problem_id?: string;
  current_revision_id?: string;
  next_revision_number?: number;
  reason?: string;
}

/** What reconciliation decided for the package's Campaign. */
export interface CampaignReconciliation {
  slug: string;
  action: CampaignAction;
  campaign_id?: string;
  reason?: string;
}

/** An advisory: a created Problem's effective task equals that of another live Problem `of`. */
export interface ReconciliationWarning {
  code: ReconciliationWarningCode;
  slug: string;
  of: string;
}

/** Reconciliation (spec section 3): what publishing the plan would do to live state. */
export interface Reconciliation {
  campaign: CampaignReconciliation | null;
  problems: ProblemReconciliation[];
  counts: Record<ReconciliationAction, number>;
  warnings: ReconciliationWarning[];
}

/**
 * One validation error: a lint record, an archive refusal (`file` naming the entry) or a published
 * id the package names that does not exist (`not_found`). `path` is a JSON Pointer into `file`.
 */
export interface ValidationError {
  file: string;
  path: string;
  code: LintCode | TreeErrorCode;
  message: string;
  rule?: number;
}

/** A lint note of a validation: advice that never blocks. */
export interface ValidationNote {
  file: string;
  path: string;
  code: NoteCode;
  message: string;
}

/** A sandbox image a validated package names, and whether this deployment can run it yet. */
export interface ImageStatus {
  image_ref: string;
  image_digest: string;
  state: ImageState;
}

/** One conformance fixture reproduced at validation. */
export interface ValidationConformance {
  stage_key: string;
  image_ref: string;
  fixture: string;
  expected: CheckerResult;
  actual: RunResult;
  passed: boolean;
  /** The planned implementation that ran it: its content hash (the plan's key). */
  implementation: string;
  /** Its script's filename beside the contract, or null for an image or builtin. */
  program: string | null;
  /** The outcome's summary or reason (at most 4000 chars). */
  detail: string;
  /** The last 4 KiB of the checker's stdout then stderr; "" when it wrote nothing. */
  log_tail: string;
}

/** validate_authoring_upload's result (spec 4.1), as stored with the upload and returned. */
export interface ValidationResult {
  /** No errors and no conflict: the upload may be published. */
  valid: boolean;
  errors: ValidationError[];
  notes: ValidationNote[];
  plan: Plan | null;
  plan_hash: string | null;
  conformance: ValidationConformance[];
  /**
   * `pending` while sandboxed fixtures are queued: `conformance` holds the builtin stages' entries
   * so far, and revalidating the same package reads the rest once they ran. `complete` otherwise.
   */
  conformance_state: ValidationConformanceState;
  images: ImageStatus[];
  /** Null when the package did not lint: there is no plan to reconcile. */
  reconciliation: Reconciliation | null;
}

/** One Problem of a publication, with the revision that is current afterwards. */
export interface PublishedProblem {
  slug: string;
  action: ReconciliationAction;
  problem_id: string;
  problem_revision_id: string;
  revision_number: number;
  /** Effective visibility: a Campaign's Problem is seen at most as widely as its Campaign. */
  visibility: Visibility;
  /** Listed, open and (in a Campaign) in an active Campaign: search and discovery show it. */
  listed_in_explore: boolean;
}

/** The Campaign of a publication. */
export interface PublishedCampaign {
  campaign_id: string;
  slug: string;
  action: CampaignAction;
  /** The live Campaign's status (`active` or `archived`). */
  status: string;
  visibility: Visibility;
}

/**
 * publish_authoring_upload's result (spec 4.1), recorded once with the upload: a republish returns
 * it unchanged. Id lists hold every record the package resolved to, created or reused.
 */
export interface PublishResult {
  campaign_id?: string;
  campaign?: PublishedCampaign;
  problems: PublishedProblem[];
  skill_version_ids: string[];
  verifier_contract_ids: string[];
  verifier_implementation_ids: string[];
  review_protocol_ids: string[];
  counts: Record<ReconciliationAction, number>;
  reconciliation: Reconciliation;
}
