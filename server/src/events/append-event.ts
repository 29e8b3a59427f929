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
  // One waiting delivery job per subscription: preserve_run_at keeps a backing-off subscription's
  // retry time, and graphile-worker adds a fresh job when the keyed one is already running.
  return sql`
    locked as (select pg_advisory_xact_lock(${EVENT_LOG_LOCK.toString()}::bigint) ${gate === null ? sql`` : sql`from ${sql(gate)}`}),
    appended as (
      insert into events (kind, occurred_at, audience_user_id, problem_id, review_process_id, node_id, data)
      select ${event.kind}, ${event.occurredAt}::timestamptz, ${event.audienceUserId}::text, ${event.problemId ?? null}::text,
        ${event.reviewProcessId ?? null}::text, ${event.nodeId ?? null}::text, ${sql.json(event.data as postgres.JSONValue)}::jsonb
      from locked
      returning id
    ),
    woken as (
      select graphile_worker.add_job(${TaskName.deliverEvents}, json_build_object('subscription_id', s.id),
        max_attempts => 5, job_key => 'deliver_events:' || s.id, job_key_mode => 'preserve_run_at')
      from event_subscriptions s, appended
      where s.ended_at is null and s.delivery = 'webhook' and (s.kinds is null or ${event.kind} = any(s.kinds))
        and (${event.audienceUserId}::text is null or s.user_id = ${event.audienceUserId})
    )`;
}
