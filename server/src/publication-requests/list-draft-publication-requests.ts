import type { Sql } from "../core/db/connect-sql.ts";
import { findDraft } from "../drafts/work-draft.ts";
import type { Viewer } from "../visibility/viewer.ts";
import {
  type PublicationRequest,
  type PublicationRequestRow,
  toPublicationRequest,
} from "./publication-request.ts";

/**
 * The publication requests of one draft, newest first, for whoever may read the draft (its owner
 * or an administrator; anyone else gets the draft's not_found). The draft page shows them: the
 * owner has no list_publication_requests (administrators only), yet sees their own requests' state.
 */
export async function listDraftPublicationRequests(
  sql: Sql,
  viewer: Viewer,
  draftId: string,
): Promise<PublicationRequest[]> {
  const draft = await findDraft(sql, viewer, draftId);
  const rows = await sql<PublicationRequestRow[]>`
    select * from publication_requests where draft_id = ${draft.id}
    order by created_at desc, id desc limit 100`;
  return rows.map(toPublicationRequest);
}
