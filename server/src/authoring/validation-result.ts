import type { LintNote } from "@svc/app";
import type { Plan } from "@svc/schemas";
import type { ImageState } from "../sandbox-images/image-state.ts";
import type { Reconciliation } from "./reconcile.ts";

/**
 * One validation error: a lint record, an archive refusal (`unsafe_path`, `unpacked_too_large`...
 * from the archive reader, `file` naming the entry) or a published id the package names that does
 * not exist (`not_found`). `file` is package-relative; `path` a JSON Pointer into it.
 */
export interface ValidationError {
  file: string;
  path: string;
  code: string;
  message: string;
  rule?: number;
}

/** A sandbox image a validated package names, and whether this deployment can run it yet. */
export interface ImageStatus {
  image_ref: string;
  image_digest: string;
  state: ImageState;
}

/** validate_authoring_upload's result (spec 4.1), as stored with the upload and returned. */
export interface ValidationResult {
  /** No errors and no conflict: the upload may be published. */
  valid: boolean;
  errors: ValidationError[];
  notes: LintNote[];
  plan: Plan | null;
  plan_hash: string | null;
  /** Conformance runs are the verification work's; validation reports none yet. */
  conformance: Array<{
    stage_key: string;
    image_ref: string;
    fixture: string;
    expected: string;
    actual: string;
    passed: boolean;
  }>;
  images: ImageStatus[];
  /** Null when the package did not lint: there is no plan to reconcile. */
  reconciliation: Reconciliation | null;
}
