import type { PublicationRequestStatus } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { PublishedVisibility } from "../drafts/publish-work-draft.ts";

/**
 * A publication request (docs/work-drafts.md) asks an administrator to publish exactly what it
 * pins: a draft version, or a piece of work's snapshot. It is `pending` until an administrator
 * approves or rejects it or its requester withdraws it, and then never changes again (the
 * database enforces the write-once resolution).
 */
export interface PublicationRequestRow {
  id: string;
  requester_user_id: string;
  status: PublicationRequestStatus;
  draft_id: string | null;
  draft_version: number | null;
  work_kind: "campaign" | "problem" | null;
  work_id: string | null;
  work_snapshot: string | null;
  visibility: PublishedVisibility;
  note_md: string;
  reviewer_user_id: string | null;
  reason_md: string | null;
  created_at: Date;
  resolved_at: Date | null;
}

/** A request as the tools show it; the pinned draft version is a string like the draft's own. */
export interface PublicationRequest {
  id: string;
  status: PublicationRequestStatus;
  requester_user_id: string;
  draft_id: string | null;
  draft_version: string | null;
  work: { campaign: string } | { problem: string } | null;
  work_snapshot: string | null;
  visibility: PublishedVisibility;
  note_md: string;
  reviewer_user_id: string | null;
  reason_md: string | null;
  created_at: string;
  resolved_at: string | null;
}

export function toPublicationRequest(row: PublicationRequestRow): PublicationRequest {
  return {
    id: row.id,
    status: row.status,
    requester_user_id: row.requester_user_id,
    draft_id: row.draft_id,
    draft_version: row.draft_version === null ? null : String(row.draft_version),
    work:
      row.work_kind === "campaign"
        ? { campaign: row.work_id! }
        : row.work_kind === "problem"
          ? { problem: row.work_id! }
          : null,
    work_snapshot: row.work_snapshot,
    visibility: row.visibility,
    note_md: row.note_md,
    reviewer_user_id: row.reviewer_user_id,
    reason_md: row.reason_md,
    created_at: row.created_at.toISOString(),
    resolved_at: row.resolved_at?.toISOString() ?? null,
  };
}

/** A request by id, optionally locked; not_found when it does not exist. */
export async function findPublicationRequest(
  sql: Sql,
  requestId: string,
  options: { lock?: boolean } = {},
): Promise<PublicationRequestRow> {
  const [row] = await sql<PublicationRequestRow[]>`
    select * from publication_requests where id = ${requestId} ${options.lock ? sql`for update` : sql``}`;
  if (!row) {
    throw new ServiceError("not_found", `no publication request has the id ${requestId}`, {
      request_id: requestId,
    });
  }
  return row;
}
