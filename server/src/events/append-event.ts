import type { EventKind } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";

/** What a change reports: its kind, who may see it, and the ids and states agents act on. */
export interface NewEvent {
  kind: EventKind;
  occurredAt: Date;
  /** The one user a personal event is for; null for a seat event, seen by reviewer standing. */
  audienceUserId: string | null;
  problemId?: string | null;
  reviewProcessId?: string | null;
  nodeId?: string | null;
  data: Record<string, unknown>;
}

/** An event as a row of the `events` columns, for a statement that reads events from JSON (eventsFromJson). */
export function eventRecord(event: NewEvent): postgres.JSONValue {
  return {
    kind: event.kind,
    occurred_at: event.occurredAt.toISOString(),
    audience_user_id: event.audienceUserId,
    problem_id: event.problemId ?? null,
    review_process_id: event.reviewProcessId ?? null,
    node_id: event.nodeId ?? null,
    data: event.data as postgres.JSONValue,
  };
}

/** A FROM item reading the eventRecord in the jsonb expression `record` as the row `alias`. */
export function eventFromJson(
  sql: Sql,
  record: postgres.PendingQuery<postgres.Row[]>,
  alias: string,
): postgres.PendingQuery<postgres.Row[]> {
  return sql`jsonb_to_record(${record}) as ${sql(alias)}(kind text, occurred_at timestamptz, audience_user_id text,
    problem_id text, review_process_id text, node_id text, data jsonb)`;
}

/**
 * Appends an event inside `tx`, the transaction of the change it reports, so it exists exactly
 * when the change committed. The event goes to `pending_events`, which writers insert into
 * without waiting on each other; it takes its log id (the cursor) after it committed, when a
 * reader settles the log (settleEvents), so ids follow commit order without a lock held by
 * writers (docs/agents.md, "Events"). Nobody is woken: streams and the workers' webhook delivery
 * (webhook-delivery.ts) look at the log themselves, so a writer's commit waits on no one's.
 */
export async function appendEvent(tx: Sql, event: NewEvent): Promise<void> {
  await tx`with ${appendEventCtes(tx, event)} select`;
}

/**
 * appendEvent's common table expression (`appended`), for a statement that makes its change and
 * appends its event in one round trip. With `gate`, the name of an earlier CTE of that
 * statement, the event is appended once per row `gate` returns (none when the change did not
 * happen). An insert in a CTE runs whether or not the statement reads it.
 */
export function appendEventCtes(
  sql: Sql,
  event: NewEvent,
  gate: string | null = null,
): postgres.PendingQuery<postgres.Row[]> {
  return appendEventsCtes(
    sql,
    sql`(select ${event.kind}::text as kind, ${event.occurredAt}::timestamptz as occurred_at,
      ${event.audienceUserId}::text as audience_user_id, ${event.problemId ?? null}::text as problem_id,
      ${event.reviewProcessId ?? null}::text as review_process_id, ${event.nodeId ?? null}::text as node_id,
      ${sql.json(event.data as postgres.JSONValue)}::jsonb as data
      ${gate === null ? sql`` : sql`from ${sql(gate)}`})`,
  );
}

/**
 * appendEventCtes for many events: `events` is a subquery (or a CTE's name as `sql(name)`) of
 * rows with the `events` columns (kind, occurred_at, audience_user_id, problem_id,
 * review_process_id, node_id, data).
 */
export function appendEventsCtes(
  sql: Sql,
  events: postgres.PendingQuery<postgres.Row[]> | postgres.Helper<string>,
): postgres.PendingQuery<postgres.Row[]> {
  return sql`
    appended as (
      insert into pending_events (kind, occurred_at, audience_user_id, problem_id, review_process_id, node_id, data)
      select e.kind, e.occurred_at, e.audience_user_id, e.problem_id, e.review_process_id, e.node_id, e.data
      from ${events} e
    )`;
}
