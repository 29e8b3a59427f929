import { PublicationRequestStatus } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { publishWorkDraft } from "../drafts/publish-work-draft.ts";
import { findDraft } from "../drafts/work-draft.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { loadManagedWork } from "../work/managed-work.ts";
import { recordWorkAudit } from "../work/record-work-audit.ts";
import { setWorkVisibility } from "../work/set-work-visibility.ts";
import { workSnapshot } from "../work/work-snapshot.ts";
import {
  findPublicationRequest,
  type PublicationRequest,
  type PublicationRequestRow,
  toPublicationRequest,
} from "./publication-request.ts";

/** What a review decides: administrators approve or reject; the requester withdraws. */
export const ReviewDecision = { approve: "approve", reject: "reject", withdraw: "withdraw" } as const;
export type ReviewDecision = (typeof ReviewDecision)[keyof typeof ReviewDecision];

const resolvedStatus = {
  approve: PublicationRequestStatus.approved,
  reject: PublicationRequestStatus.rejected,
  withdraw: PublicationRequestStatus.withdrawn,
} as const satisfies Record<ReviewDecision, PublicationRequestStatus>;

/**
 * review_work_publication (spec 4.1): an administrator approves or rejects a pending request with
 * a reason, or its requester withdraws it. Approval publishes exactly what the request pinned:
 * the pinned draft version (prepared first when needed; its revisions become the reviewed ones)
 * or the pinned work snapshot. A pin that is no longer current is refused with
 * stale_publication_request and the request stays pending.
 */
export async function reviewWorkPublication(
  services: Services,
  viewer: Viewer,
  input: { request_id: string; decision: ReviewDecision; reason_md?: string | undefined },
): Promise<{ request: PublicationRequest }> {
  const request = await findPublicationRequest(services.sql, input.request_id);
  authorize(viewer, request, input.decision);
  requirePending(request);
  if (input.decision === ReviewDecision.reject && !input.reason_md?.trim()) {
    throw new ServiceError(
      "invalid_input",
      "reason_md is required to reject: tell the requester what to change",
      {
        field: "reason_md",
      },
    );
  }
  if (input.decision === ReviewDecision.approve) await publishPinned(services, viewer, request);

  const now = services.clock();
  const [row] = await services.sql<PublicationRequestRow[]>`
    update publication_requests set status = ${resolvedStatus[input.decision]}, reviewer_user_id = ${viewer.userId},
      reason_md = ${input.reason_md ?? null}, resolved_at = ${now}
    where id = ${request.id} and status = 'pending' returning *`;
  if (!row) requirePending(await findPublicationRequest(services.sql, request.id));
  await recordWorkAudit(
    services.sql,
    viewer.userId,
    null,
    [
      {
        action: `${input.decision}_publication`,
        subject_kind: "publication_request",
        subject_id: request.id,
        detail: {
          ...(request.draft_id ? { draft_id: request.draft_id, version: String(request.draft_version) } : {}),
          ...(request.work_id ? { [request.work_kind!]: request.work_id } : {}),
          ...(input.reason_md ? { reason_md: input.reason_md } : {}),
        },
      },
    ],
    now,
  );
  return { request: toPublicationRequest(row!) };
}

function authorize(viewer: Viewer, request: PublicationRequestRow, decision: ReviewDecision): void {
  if (decision === ReviewDecision.withdraw) {
    if (request.requester_user_id !== viewer.userId) {
      throw new ServiceError("forbidden", `only the requester withdraws publication request ${request.id}`, {
        request_id: request.id,
      });
    }
    return;
  }
  if (!viewer.isAdministrator) {
    throw new ServiceError(
      "forbidden",
      "only an administrator approves or rejects a publication request; as its requester you may withdraw it",
      { required_role: "administrator" },
    );
  }
}

function requirePending(request: PublicationRequestRow): void {
  if (request.status !== PublicationRequestStatus.pending) {
    throw new ServiceError(
      "request_resolved",
      `publication request ${request.id} is already ${request.status}`,
      {
        request_id: request.id,
        status: request.status,
      },
    );
  }
}

/** Publishes exactly the pin, or refuses with stale_publication_request. */
async function publishPinned(
  services: Services,
  viewer: Viewer,
  request: PublicationRequestRow,
): Promise<void> {
  if (request.draft_id !== null) {
    const draft = await findDraft(services.sql, viewer, request.draft_id);
    if (draft.version !== request.draft_version) {
      throw stale(
        request,
        `draft ${draft.id} is at version ${draft.version}, not the pinned ${request.draft_version}`,
      );
    }
    await publishWorkDraft(
      services,
      viewer,
      { draft_id: draft.id, expected_version: String(draft.version), visibility: request.visibility },
      { reviewed: true },
    );
    return;
  }
  const reference =
    request.work_kind === "campaign" ? { campaign: request.work_id! } : { problem: request.work_id! };
  const work = await loadManagedWork(services.sql, viewer, reference);
  if (workSnapshot(work) !== request.work_snapshot) {
    throw stale(request, `${work.kind} ${work.slug} changed since the request pinned its snapshot`);
  }
  await setWorkVisibility(services, viewer, {
    work: reference,
    visibility: request.visibility,
    expected_snapshot: request.work_snapshot,
  });
}

function stale(request: PublicationRequestRow, why: string): ServiceError {
  return new ServiceError(
    "stale_publication_request",
    `${why}: approval publishes exactly what a request pins, so this one cannot be approved; reject it, or the requester withdraws it and asks again`,
    { request_id: request.id },
  );
}
