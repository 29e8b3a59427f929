import type { WorkSubjectKind } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import { findDraft } from "../drafts/work-draft.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { loadManagedWork } from "../work/managed-work.ts";
import type { WorkReference } from "../work/work-reference.ts";

/** One line of the work history as list_work_audit and the audit page show it. */
export interface WorkAuditLine {
  id: string;
  occurred_at: string;
  actor_user_id: string;
  actor_handle: string;
  action: string;
  subject_kind: WorkSubjectKind;
  subject_id: string;
  upload_id: string | null;
  /** The plan_hash of the upload the entry came through. */
  plan_hash: string | null;
  /** The Problem revision the entry created (`create` and `revise` of a problem), else empty. */
  revisions_created: Array<{ problem_revision_id: string; revision_number: number }>;
  detail: Record<string, unknown>;
}

export interface ListWorkAuditInput {
  work?: WorkReference | undefined;
  draft_id?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

interface AuditRow {
  id: string;
  occurred_at: Date;
  actor_user_id: string;
  actor_handle: string;
  action: string;
  subject_kind: WorkSubjectKind;
  subject_id: string;
  upload_id: string | null;
  plan_hash: string | null;
  detail: Record<string, unknown>;
}

/**
 * list_work_audit: the append-only work history (spec 6.4), newest first, cursor-paged by entry.
 * Filtered to one piece of work (a Campaign with its Problems) or one draft (with its work and
 * publication requests) for whoever manages it; unfiltered, a user sees the entries they made or
 * that touch work and drafts they own, and an administrator sees every entry.
 */
export async function listWorkAudit(
  sql: Sql,
  viewer: Viewer,
  input: ListWorkAuditInput,
): Promise<{ entries: WorkAuditLine[]; next_cursor: string | null }> {
  const limit = input.limit ?? 50;
  let filter = sql`true`;
  let scope: Record<string, unknown>;
  if (input.work) {
    const work = await loadManagedWork(sql, viewer, input.work);
    scope = { work: work.id };
    filter =
      work.kind === "campaign"
        ? sql`(a.subject_id = ${work.id} or a.subject_id in (select id from problems where campaign_id = ${work.id}))`
        : sql`a.subject_id = ${work.id}`;
  } else if (input.draft_id) {
    const draft = await findDraft(sql, viewer, input.draft_id);
    scope = { draft: draft.id };
    const workIds = [
      ...(draft.work?.campaign_id ? [draft.work.campaign_id] : []),
      ...(draft.work?.problem_ids ?? []),
    ];
    filter = sql`(a.subject_id = ${draft.id} or a.detail ->> 'draft_id' = ${draft.id}
      or a.subject_id in ${sql(workIds.length > 0 ? workIds : [""])}
      or a.upload_id in (select prepared_upload_id from work_drafts where id = ${draft.id}))`;
  } else if (viewer.isAdministrator) {
    scope = { all: true };
  } else {
    scope = { mine: viewer.userId };
    filter = sql`(a.actor_user_id = ${viewer.userId}
      or a.subject_id in (select id from campaigns where owner_user_id = ${viewer.userId})
      or a.subject_id in (select id from problems where owner_user_id = ${viewer.userId})
      or a.subject_id in (select id from work_drafts where owner_user_id = ${viewer.userId}))`;
  }
  const fingerprint = cursorFingerprint({ list: "work_audit", ...scope });
  const after = input.cursor ? decodeCursor(input.cursor, fingerprint, 1).k[0] : null;
  const rows = await sql<AuditRow[]>`
    select a.id::text as id, a.occurred_at, a.actor_user_id, u.handle as actor_handle, a.action, a.subject_kind,
      a.subject_id, a.upload_id, up.plan_hash, a.detail
    from work_audit a join users u on u.id = a.actor_user_id left join authoring_uploads up on up.id = a.upload_id
    where ${filter} ${after !== null ? sql`and a.id < ${String(after)}::bigint` : sql``}
    order by a.id desc limit ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map(toLine),
    next_cursor: rows.length > limit && last ? encodeCursor({ k: [last.id], f: fingerprint }) : null,
  };
}

function toLine(row: AuditRow): WorkAuditLine {
  const { detail } = row;
  const created =
    row.subject_kind === "problem" &&
    (row.action === "create" || row.action === "revise") &&
    typeof detail.problem_revision_id === "string"
      ? [{ problem_revision_id: detail.problem_revision_id, revision_number: Number(detail.revision_number) }]
      : [];
  return { ...row, occurred_at: row.occurred_at.toISOString(), revisions_created: created };
}
