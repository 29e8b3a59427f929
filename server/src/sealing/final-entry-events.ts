import { EntryEventKind, type SubmissionStatus } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

/** One event as get_final_entry shows it; `id` is the increasing event id (a cursor). */
export interface EntryEvent {
  id: string;
  kind: EntryEventKind;
  evaluation_id: string;
  problem_revision_id: string;
  user_id: string;
  submission_id: string;
  /** The Submission's status now (a withdrawn entry stays in the history). */
  submission_status: SubmissionStatus;
  created_at: string;
}

interface EntryEventRow {
  id: string;
  kind: EntryEventKind;
  evaluation_id: string;
  problem_revision_id: string;
  user_id: string;
  submission_id: string;
  submission_status: SubmissionStatus;
  created_at: Date;
}

/** What one event records. */
export interface EntryEventInput {
  evaluationId: string;
  revisionId: string;
  userId: string;
  submissionId: string;
  now: Date;
}

/** Records a Submission entering an independent evaluation (inside create_submission's transaction). */
export async function recordEntry(sql: Sql, input: EntryEventInput): Promise<void> {
  await insertEvent(sql, EntryEventKind.entry, input);
}

/** Records a nomination and returns it. */
export async function recordNomination(sql: Sql, input: EntryEventInput): Promise<EntryEvent> {
  const id = await insertEvent(sql, EntryEventKind.nomination, input);
  const [event] = await readEntryEvents(sql, {
    evaluationId: input.evaluationId,
    kind: EntryEventKind.nomination,
    userId: input.userId,
    afterId: String(BigInt(id) - 1n),
    limit: 1,
  });
  return event!;
}

async function insertEvent(sql: Sql, kind: EntryEventKind, input: EntryEventInput): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into final_entry_events (evaluation_id, problem_revision_id, user_id, submission_id, kind, created_at)
    values (${input.evaluationId}, ${input.revisionId}, ${input.userId}, ${input.submissionId}, ${kind}, ${input.now})
    returning id::text as id`;
  return row!.id;
}

/**
 * Events of one kind on an evaluation in increasing id order after `afterId`, the user's only
 * when `userId` is given; `limit` rows at most.
 */
export async function readEntryEvents(
  sql: Sql,
  filter: { evaluationId: string; kind: EntryEventKind; userId?: string; afterId?: string; limit: number },
): Promise<EntryEvent[]> {
  const rows = await sql<EntryEventRow[]>`
    select e.id::text as id, e.kind, e.evaluation_id, e.problem_revision_id, e.user_id, e.submission_id,
      s.status as submission_status, e.created_at
    from final_entry_events e join submissions s on s.id = e.submission_id
    where e.evaluation_id = ${filter.evaluationId} and e.kind = ${filter.kind}
      ${filter.userId === undefined ? sql`` : sql`and e.user_id = ${filter.userId}`}
      ${filter.afterId === undefined ? sql`` : sql`and e.id > ${filter.afterId}::bigint`}
    order by e.id
    limit ${filter.limit}`;
  return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() }));
}

/** The user's latest nomination on the evaluation, or null. */
export async function latestNomination(
  sql: Sql,
  evaluationId: string,
  userId: string,
): Promise<EntryEvent | null> {
  const [row] = await sql<EntryEventRow[]>`
    select e.id::text as id, e.kind, e.evaluation_id, e.problem_revision_id, e.user_id, e.submission_id,
      s.status as submission_status, e.created_at
    from final_entry_events e join submissions s on s.id = e.submission_id
    where e.evaluation_id = ${evaluationId} and e.kind = 'nomination' and e.user_id = ${userId}
    order by e.id desc limit 1`;
  return row ? { ...row, created_at: row.created_at.toISOString() } : null;
}
