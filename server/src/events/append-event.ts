import type { EventKind } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { TaskName } from "../core/jobs/task-name.ts";

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
 * A constant of the service's own (any 64-bit number no other lock uses): the lock that hands
 * out event ids in commit order.
 */
const EVENT_LOG_LOCK = 0x5356_4345_5645_4e54n; // "SVCEVENT"

/**
 * Appends an event inside `tx`, the transaction of the change it reports, so it exists exactly
 * when the change committed, and wakes the webhook subscriptions that want its kind (streams
 * poll the log themselves: events/stream). Ids come from a sequence, which hands them out at insert and not at commit; the transaction-scoped
 * advisory lock makes event-writing transactions take their ids one after another and hold them
 * to commit, so a reader that has seen id n never later finds a committed id below n. Call it
 * late in the transaction: the lock is held from here to commit.
 *
 * One statement, so the lock is held for one round trip and the commit: the insert reads its row
 * from the lock's CTE, so the lock is taken before the id is drawn, and the wake-ups read the
 * inserted row, so they follow it.
 */
export async function appendEvent(tx: Sql, event: NewEvent): Promise<string> {
  const [row] = await tx<{ id: string }[]>`
    with ${appendEventCtes(tx, event)}
    select appended.id::text as id, (select count(*) from woken) as woken from appended`;
  return row!.id;
}

/**
 * appendEvent's common table expressions (`locked`, `appended`, `woken`), for a statement that
 * makes its change and appends its event in one round trip. With `gate`, the name of an earlier
 * CTE of that statement, the lock is taken and the event appended once per row `gate` returns
 * (none when the change did not happen). The statement must read `woken`: a plain CTE nobody
 * reads is never run, so the subscriptions would not be woken.
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
 * review_process_id, node_id, data). The lock is taken once, only when there is an event; each
 * subscription that wants any of them is woken once. The statement must read `woken`.
 */
export function appendEventsCtes(
  sql: Sql,
  events: postgres.PendingQuery<postgres.Row[]> | postgres.Helper<string>,
): postgres.PendingQuery<postgres.Row[]> {
  // One waiting delivery job per subscription: preserve_run_at keeps a backing-off subscription's
  // retry time, and graphile-worker adds a fresh job when the keyed one is already running.
  return sql`
    new_events as (select * from ${events} e),
    locked as (select pg_advisory_xact_lock(${EVENT_LOG_LOCK.toString()}::bigint) where exists (select from new_events)),
    appended as (
      insert into events (kind, occurred_at, audience_user_id, problem_id, review_process_id, node_id, data)
      select e.kind, e.occurred_at, e.audience_user_id, e.problem_id, e.review_process_id, e.node_id, e.data
      from new_events e, locked
      returning id, kind, audience_user_id
    ),
    woken as (
      select graphile_worker.add_job(${TaskName.deliverEvents}, json_build_object('subscription_id', s.id),
        max_attempts => 5, job_key => 'deliver_events:' || s.id, job_key_mode => 'preserve_run_at')
      from event_subscriptions s
      where s.ended_at is null and s.delivery = 'webhook'
        and exists (select from appended a
                    where (s.kinds is null or a.kind = any(s.kinds))
                      and (a.audience_user_id is null or s.user_id = a.audience_user_id))
    )`;
}
