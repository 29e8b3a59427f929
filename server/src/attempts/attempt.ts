import type { AttemptOutcome, AttemptStatus } from "@svc/schemas";

/**
 * Glossary. An *Attempt* is one participant's work on one Problem, pinned to the revision it
 * started on (spec 9.1). It is `active` until `end_attempt` ends it with an *outcome* and a
 * summary note; an ended Attempt takes no more notes, uploads or submissions. A *continuation* is
 * a new Attempt that carries on an ended one of the same user and Problem; each Attempt has at
 * most one continuation (its *successor*), so continuations form a chain.
 */

/** An `attempts` row with the Problem's slug, the revision number and the successor's id. */
export interface AttemptRow {
  id: string;
  problem_id: string;
  problem_slug: string;
  problem_revision_id: string;
  revision_number: number;
  user_id: string;
  organization_id: string | null;
  continues_attempt_id: string | null;
  continued_by_attempt_id: string | null;
  status: AttemptStatus;
  outcome: AttemptOutcome | null;
  started_at: Date;
  ended_at: Date | null;
}

/** The Attempt record as tools return it. */
export interface Attempt {
  id: string;
  problem_id: string;
  problem_slug: string;
  problem_revision_id: string;
  revision_number: number;
  user_id: string;
  organization_id: string | null;
  continues_attempt_id: string | null;
  continued_by_attempt_id: string | null;
  status: AttemptStatus;
  outcome: AttemptOutcome | null;
  started_at: string;
  ended_at: string | null;
}

/** The select list of {@link AttemptRow} over `attempts a`. */
export const ATTEMPT_COLUMNS = `a.id, a.problem_id, (select slug from problems where id = a.problem_id) as problem_slug,
  a.problem_revision_id,
  (select revision_number from problem_revisions where id = a.problem_revision_id) as revision_number,
  a.user_id, a.organization_id, a.continues_attempt_id,
  (select s.id from attempts s where s.continues_attempt_id = a.id) as continued_by_attempt_id,
  a.status, a.outcome, a.started_at, a.ended_at`;

/** The record of a row. */
export function toAttempt(row: AttemptRow): Attempt {
  return {
    id: row.id,
    problem_id: row.problem_id,
    problem_slug: row.problem_slug,
    problem_revision_id: row.problem_revision_id,
    revision_number: row.revision_number,
    user_id: row.user_id,
    organization_id: row.organization_id,
    continues_attempt_id: row.continues_attempt_id,
    continued_by_attempt_id: row.continued_by_attempt_id,
    status: row.status,
    outcome: row.outcome,
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
  };
}
