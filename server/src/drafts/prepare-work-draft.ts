import {
  DraftStatus,
  IdPrefix,
  ImageState,
  type PublishResult,
  type Reconciliation,
  UploadState,
} from "@svc/schemas";
import { publishUpload } from "../authoring/publish-authoring-upload.ts";
import { validateUpload } from "../authoring/validate-authoring-upload.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { recordWorkAudit } from "../work/record-work-audit.ts";
import { zipDraft } from "./draft-files.ts";
import { requireNoReview } from "./require-no-review.ts";
import {
  checkDraftVersion,
  type DraftLintError,
  type DraftRow,
  findDraft,
  toWorkDraft,
  type WorkDraft,
} from "./work-draft.ts";

export interface PreparedDraft {
  draft: WorkDraft;
  upload_id: string;
  plan_hash: string;
  reconciliation: Reconciliation;
  publication: Pick<PublishResult, "campaign_id" | "campaign" | "problems" | "counts">;
}

/**
 * prepare_work_draft (spec 4.1): materializes the draft's version as work through the one
 * authoring path. The files are zipped into an authoring upload of the draft's owner, which
 * validate_authoring_upload's validator and reconciler check and publish_authoring_upload's
 * publication executes: new Campaigns and Problems start private and belong to the owner, later
 * versions revise them. An invalid version marks the draft `invalid` and answers draft_invalid
 * with the errors and conflicts; so does a version naming a script runtime this deployment has
 * unbound (spec 3: unbound script uploads cannot materialize as a draft).
 */
export async function prepareWorkDraft(
  services: Services,
  viewer: Viewer,
  input: { draft_id: string; expected_version: string },
  options: { reviewed?: boolean } = {},
): Promise<PreparedDraft> {
  const draft = await findDraft(services.sql, viewer, input.draft_id);
  checkDraftVersion(draft, input.expected_version);
  // An approval (reviewed) is the review itself; anyone else meets the review guard.
  if (!options.reviewed) await requireNoReview(services.sql, viewer, draft);

  const uploadId = await uploadDraft(services, draft);
  const validation = await validateUpload(services, draft.owner_user_id, uploadId);
  if (!validation.valid) {
    const conflicts = validation.reconciliation
      ? [validation.reconciliation.campaign, ...validation.reconciliation.problems].filter(
          (entry) => entry?.action === "conflict",
        )
      : [];
    const lintErrors: DraftLintError[] = [
      ...validation.errors,
      ...conflicts.map((c) => ({
        file: "",
        path: "",
        code: "conflict",
        message: `${c!.slug}: ${"reason" in c! ? c!.reason : "conflict"}`,
      })),
    ];
    await markInvalid(services, draft, lintErrors);
    throw new ServiceError(
      "draft_invalid",
      `version ${draft.version} of draft ${draft.id} has ${validation.errors.length} error(s) and ${conflicts.length} conflict(s): fix the files named and save again`,
      { draft_id: draft.id, version: String(draft.version), errors: validation.errors, conflicts },
    );
  }
  // Spec 3: an unbound script upload cannot materialize as a draft (nothing here could run it).
  const unbound = validation.images.filter((image) => image.state === ImageState.unbound);
  if (unbound.length > 0) {
    const lintErrors: DraftLintError[] = unbound.map((image) => ({
      file: "",
      path: "",
      code: "unsupported_runtime",
      message: `the script runtime ${image.image_ref} is unbound on this deployment, so no checker on it can run: an operator binds it first (docs/verification.md, "Binding the python runtime"), then prepare again`,
    }));
    await markInvalid(services, draft, lintErrors);
    throw new ServiceError(
      "draft_invalid",
      `version ${draft.version} of draft ${draft.id} names the unbound script runtime ${unbound.map((i) => i.image_ref).join(", ")}: an unbound script upload cannot materialize as a draft until an operator binds the runtime`,
      { draft_id: draft.id, version: String(draft.version), errors: lintErrors, conflicts: [] },
    );
  }
  const reconciliation = validation.reconciliation!;
  const published = await publishUpload(
    services,
    draft.owner_user_id,
    { upload_id: uploadId, plan_hash: validation.plan_hash! },
    {
      actorUserId: viewer.userId,
      actorIsAdministrator: viewer.isAdministrator,
      reviewed: options.reviewed ?? false,
    },
  );
  const work = {
    campaign_id: published.campaign_id ?? null,
    problem_ids: published.problems.map((p) => p.problem_id),
  };
  const now = services.clock();
  const [row] = await services.sql<DraftRow[]>`
    update work_drafts set prepared_version = ${draft.version}, prepared_upload_id = ${uploadId},
      plan_hash = ${validation.plan_hash}, lint_errors = '[]', work = ${services.sql.json(work)},
      status = case when version = ${draft.version} then ${DraftStatus.prepared} else status end, updated_at = ${now}
    where id = ${draft.id} returning *`;
  await recordWorkAudit(
    services.sql,
    viewer.userId,
    uploadId,
    [
      {
        action: "prepare_draft",
        subject_kind: "work_draft",
        subject_id: draft.id,
        detail: { version: String(draft.version), plan_hash: validation.plan_hash, counts: published.counts },
      },
    ],
    now,
  );
  return {
    draft: toWorkDraft(row!),
    upload_id: uploadId,
    plan_hash: validation.plan_hash!,
    reconciliation,
    publication: {
      ...(published.campaign_id ? { campaign_id: published.campaign_id, campaign: published.campaign } : {}),
      problems: published.problems,
      counts: published.counts,
    },
  };
}

/** Marks the draft's version invalid with the errors that stop it. */
async function markInvalid(services: Services, draft: DraftRow, lintErrors: DraftLintError[]): Promise<void> {
  await services.sql`
    update work_drafts set status = ${DraftStatus.invalid}, lint_errors = ${services.sql.json(lintErrors as never)}
    where id = ${draft.id} and version = ${draft.version}`;
}

/** Zips the draft's files into an authoring upload of its owner, already received. */
async function uploadDraft(services: Services, draft: DraftRow): Promise<string> {
  const bytes = await zipDraft(services.blobs, draft.files);
  const stored = await services.blobs.put(bytes);
  const id = randomId(IdPrefix.authoringUpload);
  const now = services.clock();
  await services.sql`
    insert into authoring_uploads (id, user_id, state, size_bytes, content_hash, expires_at, uploaded_at)
    values (${id}, ${draft.owner_user_id}, ${UploadState.uploaded}, ${stored.size_bytes}, ${stored.content_hash},
      ${now}, ${now})`;
  return id;
}
