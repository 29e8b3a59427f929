import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { findDraft, toWorkDraft, type WorkDraft } from "./work-draft.ts";

/** get_work_draft: one draft, for its owner or an administrator. */
export async function getWorkDraft(sql: Sql, viewer: Viewer, draftId: string): Promise<{ draft: WorkDraft }> {
  return { draft: toWorkDraft(await findDraft(sql, viewer, draftId)) };
}
