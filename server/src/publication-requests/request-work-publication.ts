import { IdPrefix, WorkSubjectKind } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import type { PublishedVisibility } from "../drafts/publish-work-draft.ts";
import { checkDraftVersion, findDraft } from "../drafts/work-draft.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { checkSnapshot } from "../work/check-snapshot.ts";
import { loadManagedWork } from "../work/managed-work.ts";
import { recordWorkAudit } from "../work/record-work-audit.ts";
import type { WorkReference } from "../work/work-reference.ts";
import {
  type PublicationRequest,
  type PublicationRequestRow,
  toPublicationRequest,
} from "./publication-request.ts";

const PINNED = [WorkSubjectKind.work_draft, WorkSubjectKind.campaign, WorkSubjectKind.problem] as const;
type PinnedSubjectKind = (typeof PINNED)[number];

export type RequestWorkPublicationInput = {
  visibility?: PublishedVisibility | undefined;
  note_md?: string | undefined;
} & (
  | { draft_id: string; expected_version: string; work?: undefined; expected_snapshot?: undefined }
  | { work: WorkReference; expected_snapshot: string; draft_id?: undefined; expected_version?: undefined }
);

/**
 * request_work_publication (spec 4.1): the owner (or an administrator) of a draft or a piece of
 * work asks an administrator to publish it, pinning the draft version or the work snapshot they
 * read; a stale pin is refused at once. One pending request per draft or work.
 */
export async function requestWorkPublication(
  services: Services,
  viewer: Viewer,
  input: RequestWorkPublicationInput,
): Promise<{ request: PublicationRequest }> {
  const visibility = input.visibility ?? "listed";
  const id = randomId(IdPrefix.publicationRequest);
  try {
    return await inTransaction(services.sql, async (tx) => {
      const now = services.clock();
      let rows: PublicationRequestRow[];
      // A request pins a draft, or a Campaign or Problem snapshot.
      let subject: { kind: PinnedSubjectKind; id: string };
      if (input.draft_id !== undefined) {
        const draft = await findDraft(tx, viewer, input.draft_id, { lock: true });
        checkDraftVersion(draft, input.expected_version);
        rows = await tx<PublicationRequestRow[]>`
          insert into publication_requests (id, requester_user_id, draft_id, draft_version, visibility, note_md, created_at)
          values (${id}, ${viewer.userId}, ${draft.id}, ${draft.version}, ${visibility}, ${input.note_md ?? ""}, ${now})
          returning *`;
        subject = { kind: "work_draft", id: draft.id };
      } else {
        const work = await loadManagedWork(tx, viewer, input.work, { lock: true });
        checkSnapshot(work, input.expected_snapshot);
        rows = await tx<PublicationRequestRow[]>`
          insert into publication_requests (id, requester_user_id, work_kind, work_id, work_snapshot, visibility, note_md, created_at)
          values (${id}, ${viewer.userId}, ${work.kind}, ${work.id}, ${input.expected_snapshot}, ${visibility},
            ${input.note_md ?? ""}, ${now})
          returning *`;
        subject = { kind: work.kind, id: work.id };
      }
      const request = rows[0]!;
      await recordWorkAudit(
        tx,
        viewer.userId,
        null,
        [
          {
            action: "request_publication",
            subject_kind: "publication_request",
            subject_id: request.id,
            detail: {
              [subject.kind === "work_draft" ? "draft_id" : subject.kind]: subject.id,
              ...(request.draft_version !== null ? { version: String(request.draft_version) } : {}),
              visibility,
            },
          },
        ],
        now,
      );
      return { request: toPublicationRequest(request) };
    });
  } catch (error) {
    if (
      isUniqueViolation(error, "publication_requests_pending_draft") ||
      isUniqueViolation(error, "publication_requests_pending_work")
    ) {
      throw new ServiceError(
        "conflict",
        "a publication request of this draft or work is already pending: wait for its review, or withdraw it (review_work_publication with decision withdraw) and ask again",
        { reason: "request_pending" },
      );
    }
    throw error;
  }
}
