import { DraftStatus, Role, Visibility } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { liveRole } from "../users/live-role.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { recordWorkAudit, type WorkAuditEntry } from "../work/record-work-audit.ts";
import { prepareWorkDraft } from "./prepare-work-draft.ts";
import { requireNoReview } from "./require-no-review.ts";
import { checkDraftVersion, type DraftRow, findDraft, toWorkDraft, type WorkDraft } from "./work-draft.ts";

/** The visibilities a publication raises work to. */
export type PublishedVisibility = typeof Visibility.unlisted | typeof Visibility.listed;

/**
 * publish_work_draft (spec 4.1): publishes a draft version as unlisted or listed work, preparing
 * it first when it is not yet materialized. An author may publish unlisted work, a trusted author
 * their own listed work, an administrator any draft. A draft whose request is under review, or
 * whose reviewed work the version would replace, is refused with revision_review_required.
 */
export async function publishWorkDraft(
  services: Services,
  viewer: Viewer,
  input: { draft_id: string; expected_version: string; visibility: PublishedVisibility },
  options: { reviewed?: boolean } = {},
): Promise<{ draft: WorkDraft }> {
  const draft = await findDraft(services.sql, viewer, input.draft_id);
  checkDraftVersion(draft, input.expected_version);
  if (!options.reviewed) {
    await requirePublishRole(services, viewer, input.visibility);
    await requireNoReview(services.sql, viewer, draft);
  }
  if (draft.prepared_version !== draft.version) {
    await prepareWorkDraft(services, viewer, input, options);
  }
  return await inTransaction(services.sql, async (tx) => {
    const locked = await findDraft(tx, viewer, input.draft_id, { lock: true });
    checkDraftVersion(locked, input.expected_version);
    const now = services.clock();
    const audit: WorkAuditEntry[] = [];
    const work = locked.work!;
    const targets = work.campaign_id
      ? [{ kind: "campaign" as const, id: work.campaign_id }]
      : work.problem_ids.map((id) => ({ kind: "problem" as const, id }));
    for (const target of targets) {
      const table = target.kind === "campaign" ? tx`campaigns` : tx`problems`;
      const [before] = await tx<{ visibility: Visibility }[]>`
        select visibility from ${table} where id = ${target.id} for update`;
      if (!before || before.visibility === input.visibility) continue;
      await tx`update ${table} set visibility = ${input.visibility}, updated_at = ${now} where id = ${target.id}`;
      audit.push({
        action: "set_visibility",
        subject_kind: target.kind,
        subject_id: target.id,
        detail: { from: before.visibility, to: input.visibility, draft_id: locked.id },
      });
    }
    const [row] = await tx<DraftRow[]>`
      update work_drafts set status = ${DraftStatus.published}, published_version = version,
        visibility = ${input.visibility}, updated_at = ${now},
        reviewed_version = ${options.reviewed ? tx`version` : tx`reviewed_version`}
      where id = ${locked.id} returning *`;
    audit.push({
      action: "publish_draft",
      subject_kind: "work_draft",
      subject_id: locked.id,
      detail: {
        version: String(locked.version),
        visibility: input.visibility,
        reviewed: options.reviewed ?? false,
      },
    });
    await recordWorkAudit(tx, viewer.userId, locked.prepared_upload_id, audit, now);
    return { draft: toWorkDraft(row!) };
  });
}

/** Unlisted needs the author role, listed the trusted-author role; administrators publish anything. */
async function requirePublishRole(
  services: Services,
  viewer: Viewer,
  visibility: PublishedVisibility,
): Promise<void> {
  if (viewer.isAdministrator) return;
  const { roles } = await liveRole(services.sql, viewer.userId);
  if (visibility === Visibility.listed && !roles.includes(Role.trusted_author)) {
    throw new ServiceError(
      "forbidden",
      "listing your own work needs the trusted-author role: publish it unlisted, or ask an administrator to review it (request_work_publication)",
      { required_role: Role.trusted_author },
    );
  }
  if (!roles.includes(Role.author)) {
    throw new ServiceError(
      "forbidden",
      "publishing a draft needs the author role (an operator or administrator grants it); request_work_publication asks an administrator instead",
      { required_role: Role.author },
    );
  }
}
