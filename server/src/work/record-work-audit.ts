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
  if (entries.length === 0) return;
  // One statement for all of them (a 300-problem publication audits 300 creates), in their order.
  const rows = entries.map((e) => ({ ...e, detail: e.detail ?? {} }));
  await sql`
    insert into work_audit (occurred_at, actor_user_id, upload_id, action, subject_kind, subject_id, detail)
    select ${occurredAt}, ${actorUserId}, ${uploadId}, e.value->>'action', e.value->>'subject_kind',
      e.value->>'subject_id', e.value->'detail'
    from jsonb_array_elements(${sql.json(rows as Parameters<Sql["json"]>[0])}) with ordinality as e(value, n)
    order by e.n`;
}
