import type { CriteriaChangeKind } from "@svc/schemas";

/** One row of criteria_changes, with its revisions' numbers joined in. */
export interface CriteriaChangeRow {
  id: string;
  seq: string;
  user_id: string;
  kind: CriteriaChangeKind;
  problem_id: string;
  problem_slug: string;
  from_revision_id: string | null;
  from_revision_number: number | null;
  to_revision_id: string | null;
  to_revision_number: number | null;
  reason: string;
  changed: string[];
  affected_attempts: Array<{ attempt_id: string; problem_revision_id: string }>;
  created_at: Date;
}

/** The select list and joins that give a CriteriaChangeRow as `cc`. */
export const CRITERIA_CHANGE_SELECT = `
  select cc.id, cc.seq::text as seq, cc.user_id, cc.kind, cc.problem_id, p.slug as problem_slug,
    cc.from_revision_id, fr.revision_number as from_revision_number,
    cc.to_revision_id, tr.revision_number as to_revision_number,
    cc.reason, cc.changed, cc.affected_attempts, cc.created_at
  from criteria_changes cc
    join problems p on p.id = cc.problem_id
    left join problem_revisions fr on fr.id = cc.from_revision_id
    left join problem_revisions tr on tr.id = cc.to_revision_id`;

/** A criteria change as the tools return it. */
export function criteriaChangeView(row: CriteriaChangeRow) {
  return {
    criteria_change_id: row.id,
    kind: row.kind,
    problem_id: row.problem_id,
    problem_slug: row.problem_slug,
    from_revision: row.from_revision_id
      ? { id: row.from_revision_id, number: row.from_revision_number }
      : null,
    to_revision: row.to_revision_id ? { id: row.to_revision_id, number: row.to_revision_number } : null,
    reason: row.reason,
    changed: row.changed,
    affected_attempts: row.affected_attempts,
    created_at: row.created_at.toISOString(),
  };
}
