import type { Sql } from "../core/db/connect-sql.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { type DraftRow, toWorkDraft, type WorkDraft } from "./work-draft.ts";

/**
 * list_work_drafts: the caller's drafts, newest first, cursor-paged by creation. An administrator
 * names another owner with `owner_user_id`; anyone else always sees only their own.
 */
export async function listWorkDrafts(
  sql: Sql,
  viewer: Viewer,
  input: { owner_user_id?: string | undefined; cursor?: string | undefined; limit?: number | undefined },
): Promise<{ drafts: WorkDraft[]; next_cursor: string | null }> {
  const owner = viewer.isAdministrator && input.owner_user_id ? input.owner_user_id : viewer.userId;
  const limit = input.limit ?? 50;
  const fingerprint = cursorFingerprint({ list: "work_drafts", owner });
  const after = input.cursor ? decodeCursor(input.cursor, fingerprint, 2).k : null;
  const rows = await sql<DraftRow[]>`
    select * from work_drafts where owner_user_id = ${owner}
      ${after ? sql`and (created_at, id) < (${String(after[0])}::timestamptz, ${String(after[1])})` : sql``}
    order by created_at desc, id desc limit ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    drafts: page.map(toWorkDraft),
    next_cursor:
      rows.length > limit && last
        ? encodeCursor({ k: [last.created_at.toISOString(), last.id], f: fingerprint })
        : null,
  };
}
