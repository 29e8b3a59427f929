import {
  Capability,
  hasConflicts,
  Role,
  Scope,
  UploadState,
  ValidationConformanceState,
  type ValidationError,
  type ValidationResult,
} from "@svc/schemas";
import { hasSandboxedFixtures, validationConformance } from "../conformance/validation-conformance.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { registerImages } from "../sandbox-images/register-images.ts";
import { liveRole } from "../users/live-role.ts";
import type { Principal } from "../users/principal.ts";
import { requireScope } from "../users/require-scope.ts";
import { type AuthoringUpload, findOwnUpload, type StoredValidation } from "./authoring-upload.ts";
import { checkLimitCeilings } from "./check-limit-ceilings.ts";
import { checkNamedCampaigns } from "./check-named-campaigns.ts";
import { checkPublishedContractBindings } from "./check-published-contract-bindings.ts";
import { checkPublishedReferences } from "./check-published-references.ts";
import { imageStatuses, isCustomImage, plannedImages } from "./image-statuses.ts";
import { contractFile } from "./package-files.ts";
import { readLiveState } from "./read-live-state.ts";
import { uploadArchive } from "./read-upload-tree.ts";
import { reconcile } from "./reconcile.ts";
import { sharedValidatedTrees } from "./validated-trees.ts";
import { queueValidationConformance } from "./validation-conformance-job.ts";
import { validationPool } from "./validation-pool.ts";
import { yankedProtocolNotes } from "./yanked-protocol-notes.ts";

export interface ValidatedUpload extends ValidationResult {
  upload_id: string;
  state: UploadState;
}

/**
 * validate_authoring_upload (spec 4.1): unpacks the caller's uploaded archive under the server's
 * ceilings and lints it on the validation pool (`busy` when its queue is full), checks the
 * published ids it pins, snapshots the live records the plan names and reconciles against them. Stores the result and the snapshot with the upload (`validated`
 * when there is no error and no conflict, `invalid` otherwise) and returns the result. A hostile
 * archive is an error in the result, never a failure of the call. Revalidating recomputes against
 * the state of the moment; the author's bytes are only read.
 */
export async function validateAuthoringUpload(
  services: Services,
  principal: Principal,
  input: { upload_id: string },
): Promise<ValidatedUpload> {
  requireScope(principal, Scope.contribute);
  return await validateUpload(services, principal.user.id, input.upload_id);
}

/**
 * The validation of `userId`'s own upload, for validate_authoring_upload and for prepare_work_draft
 * (a draft is prepared through an upload of its owner: one validator and one reconciler).
 */
export async function validateUpload(
  services: Services,
  userId: string,
  uploadId: string,
): Promise<ValidatedUpload> {
  const upload = await findOwnUpload(services.sql, userId, uploadId);
  assertValidatable(upload);

  const result = await validate(services, userId, upload);
  const valid = result.validation.valid;
  const state = valid ? UploadState.validated : UploadState.invalid;
  const [row] = await services.sql<{ state: UploadState }[]>`
    update authoring_uploads
    set state = ${state}, validated_at = ${services.clock()}, validation = ${services.sql.json(result.validation as never)},
      plan_hash = ${result.validation.plan_hash}
    where id = ${upload.id} and state <> ${UploadState.published}
    returning state`;
  if (!row) throw alreadyPublished(upload.id);
  if (result.validation.conformance_state === ValidationConformanceState.pending) {
    await queueValidationConformance(services.sql, upload.id, result.validation.plan_hash!);
  }
  const { snapshot: _snapshot, ...shown } = result.validation;
  return { upload_id: upload.id, state: row.state, ...shown };
}

function assertValidatable(upload: AuthoringUpload): void {
  if (upload.state === UploadState.requested) {
    throw new ServiceError(
      "upload_not_ready",
      `upload ${upload.id} has not received its archive: PUT the archive to the upload_url first`,
      { upload_id: upload.id, state: upload.state },
    );
  }
  if (upload.state === UploadState.published) throw alreadyPublished(upload.id);
}

function alreadyPublished(uploadId: string): ServiceError {
  return new ServiceError(
    "conflict",
    `upload ${uploadId} is already published and never changes: request a new upload to validate a newer package`,
    { upload_id: uploadId, state: UploadState.published },
  );
}

async function validate(
  services: Services,
  userId: string,
  upload: AuthoringUpload,
): Promise<{ validation: StoredValidation }> {
  const empty = {
    notes: [],
    plan: null,
    plan_hash: null,
    conformance: [],
    conformance_state: ValidationConformanceState.complete,
    images: [],
    reconciliation: null,
    snapshot: null,
  };
  // Unpacking, lint and planning run on the validation pool's threads, never on this one.
  const pooled = await validationPool().validate(
    uploadArchive(services.blobs, upload.content_hash),
    services.clock(),
  );
  if (pooled.kind === "refused") {
    const refusal: ValidationError = {
      file: pooled.error.entry ?? "",
      path: "",
      code: pooled.error.code,
      message: pooled.error.message,
    };
    return { validation: { valid: false, errors: [refusal], ...empty } };
  }
  const { report: lint, tree } = pooled;
  if (!lint.plan || !lint.plan_hash) {
    return { validation: { valid: false, ...empty, errors: lint.errors, notes: lint.notes } };
  }
  const plan = lint.plan;
  const has = (path: string) => tree.size(path) !== undefined;
  const role = await liveRole(services.sql, userId);
  const errors: ValidationError[] = [
    ...(await checkPublishedReferences(services.sql, plan, has)),
    ...(await checkPublishedContractBindings(services.sql, plan)),
    ...checkLimitCeilings(plan, services.sandboxBudget.ceilings, has),
  ];

  const mayNameCustom = role.capabilities.includes(Capability.custom_verifier);
  if (mayNameCustom) {
    await registerImages(
      services.sql,
      userId,
      plannedImages(plan).filter((image) => isCustomImage(image.image_ref)),
    );
  } else {
    for (const implementation of Object.values(plan.verifier_implementations)) {
      if (!isCustomImage(implementation.runtime.image_ref)) continue;
      const stage = implementation.stages[0]!;
      errors.push({
        file: contractFile(plan, stage.verifier_contract, has),
        path: "",
        code: "unsupported_runtime",
        message: `stage ${stage.stage_key} names the custom image ${implementation.runtime.image_ref}, which needs the custom_verifier capability an operator grants; use a builtin or a ./checker.py instead`,
      });
    }
  }

  const images = await imageStatuses(services, plan);
  const conformance = await validationConformance(services, userId, plan, tree, "builtin");
  // Sandboxed fixtures run in the host's budget, not on this request: the result says `pending`,
  // and revalidating the same package reads the entries once the job has added them.
  let conformanceState: ValidationConformanceState = ValidationConformanceState.complete;
  const previous = upload.validation;
  if (previous?.plan_hash === lint.plan_hash && previous.conformance_state !== undefined) {
    conformance.splice(0, conformance.length, ...previous.conformance);
    conformanceState = previous.conformance_state;
  } else if (await hasSandboxedFixtures(services, plan)) {
    conformanceState = ValidationConformanceState.pending;
  }
  const caller = { user_id: userId, is_admin: role.roles.includes(Role.administrator) };
  const live = await readLiveState(services.sql, plan);
  const reconciliation = checkNamedCampaigns(
    plan,
    reconcile(plan, live.live, caller),
    live.campaigns,
    caller,
  );
  const conflict = hasConflicts(reconciliation);
  const valid = errors.length === 0 && !conflict;
  // The publication that follows stores the package's bytes from this tree, not a second unpack.
  if (valid) sharedValidatedTrees().remember(upload.content_hash, tree);
  return {
    validation: {
      valid,
      errors,
      notes: [...lint.notes, ...(await yankedProtocolNotes(services.sql, plan, has))],
      plan,
      plan_hash: lint.plan_hash,
      conformance,
      conformance_state: conformanceState,
      images,
      reconciliation,
      snapshot: live.snapshot,
    },
  };
}
