import type { WorkSubjectKind } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

export type WorkAuditSubject = WorkSubjectKind;

/** One line of package maintenance history (spec 6.4): who did what to which work, through which upload. */
export interface WorkAuditEntry {
  action: string;
  subject_kind: WorkAuditSubject;
  subject_id: string;
  detail?: Record<string, unknown>;
}

/** Appends entries to `work_audit` for `actorUserId` (and `uploadId`, null outside uploads). */
export async function recordWorkAudit(
  sql: Sql,
  actorUserId: string,
  uploadId: string | null,
  entries: readonly WorkAuditEntry[],
  occurredAt: Date,
): Promise<void> {
  for (const e of entries) {
    await sql`
      insert into work_audit (occurred_at, actor_user_id, upload_id, action, subject_kind, subject_id, detail)
      values (${occurredAt}, ${actorUserId}, ${uploadId}, ${e.action}, ${e.subject_kind}, ${e.subject_id},
        ${sql.json((e.detail ?? {}) as Parameters<Sql["json"]>[0])})`;
  }
}
