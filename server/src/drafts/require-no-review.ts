import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import type { DraftRow } from "./work-draft.ts";

/**
 * Refuses with revision_review_required while a publication request of the draft is pending: the
 * version under review is the administrator's to publish, and nothing may replace it meanwhile.
 * Administrators are not held back.
 */
export async function requireNoReview(sql: Sql, viewer: Viewer, draft: DraftRow): Promise<void> {
  if (viewer.isAdministrator) return;
  const [pending] = await sql<{ id: string; draft_version: number }[]>`
    select id, draft_version from publication_requests where draft_id = ${draft.id} and status = 'pending'`;
  if (pending) {
    throw reviewRequired(
      draft,
      `publication request ${pending.id} of version ${pending.draft_version} is under review (withdraw it with review_work_publication to change course)`,
    );
  }
}

/** revision_review_required (spec 7): the approved revision stays current. */
export function reviewRequired(draft: DraftRow, why: string): ServiceError {
  return new ServiceError(
    "revision_review_required",
    `${why}; version ${draft.version} of draft ${draft.id} would replace reviewed work, so the approved revision stays current: request_work_publication for version ${draft.version} and an administrator reviews it`,
    {
      draft_id: draft.id,
      version: String(draft.version),
      reviewed_version: draft.reviewed_version === null ? null : String(draft.reviewed_version),
    },
  );
}
