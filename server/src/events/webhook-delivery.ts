import { randomUUID } from "node:crypto";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { pipelinedTransaction } from "../core/db/pipelined-transaction.ts";
import { type SessionLock, trySessionLock } from "../core/db/session-lock.ts";
import { type PostAgents, safePost } from "../core/http/safe-post.ts";
import { webhookDeliveries } from "../core/metrics/metrics.ts";
import type { Services } from "../core/services/services.ts";
import type { DeliveryAttempt } from "./delivery-attempt.ts";
import type { EventAudience } from "./event-audience.ts";
import type { EventRow } from "./event-record.ts";
import { eventView } from "./event-record.ts";
import { type EventSubscriptionRow, SUBSCRIPTION_COLUMNS } from "./event-subscription.ts";
import { webhookSecret, webhookSignature } from "./webhook-secret.ts";

/** Events examined per subscription per pass; each is POSTed in order before the pass commits. */
export const BATCH = 20;
/** Subscriptions one pass claims at most: their POSTs go out together, their writes in one statement. */
export const PASS_SUBSCRIPTIONS = 64;
/** Passes one process runs at once (each one transaction on its own connection). */
export const PASSES_AT_ONCE = 4;
/** After this long a pass starts no new POST: a slow receiver holds its pass's commit, not for ever. */
const PASS_BUDGET_MS = 2000;
/** How soon the log is looked at again after a look that found new events. */
export const ACTIVE_POLL_MS = 10;
/** The longest wait between two looks at the log while nothing happens (each idle look doubles the wait up to it). */
export const IDLE_POLL_MS = 250;
/** How often a process that does not deliver tries to take over delivery (the lock's holder may have died). */
export const TAKE_OVER_MS = 2000;
/** The session lock the delivering process holds: 0x5356_4348_4f4f_4b53, "SVCHOOKS". */
const DELIVERY_LOCK = "6005061130992438099";
/** The longest wait between attempts at one event. */
const MAX_BACKOFF_MS = 3600_000;

/** The wait before the next attempt after `failures` failed ones: 1 s, 2 s, 4 s ... one hour. */
export function backoffMs(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
}

export interface WebhookDelivery {
  /** Looks at these subscriptions soon (the minute sweep's lagging ones, a queued deliver_events job). */
  consider(subscriptionIds: readonly string[]): void;
  /** Stops looking; resolves when the passes under way have committed. */
  stop(): Promise<void>;
}

/** A subscription claimed by a pass, with its next events. */
type Claimed = EventSubscriptionRow & { events: EventRow[] };

/** What a pass did for one subscription, to write and to plan its next look. */
interface Outcome {
  subscription: Claimed;
  attempts: DeliveryAttempt[];
  cursor: string;
  failed: boolean;
  /** It has events after the new cursor, or may have (a full batch, or the budget ran out). */
  more: boolean;
}

/**
 * Delivers the webhook subscriptions' events from this process (docs/agents.md, "Webhook
 * deliveries"). Writers do not wake anyone: every ACTIVE_POLL_MS while events come (backing off
 * to IDLE_POLL_MS when none do) it settles the log and reads which live webhook subscriptions
 * want an event of the ids settled since its last look; those are due. Due subscriptions are
 * delivered in passes, up to PASS_SUBSCRIPTIONS a pass and PASSES_AT_ONCE passes at once: a pass
 * is one transaction that locks its subscriptions' rows (SKIP LOCKED: a row another process's
 * pass holds is that process's, which reads the same ids) and reads up to BATCH events of each
 * in one statement, POSTs each subscription's events in id order (the subscriptions side by
 * side, over kept-alive connections), and writes every attempt and cursor in one statement with
 * its commit. A 2xx answer delivers an event; any other outcome stops that subscription's
 * events, is counted, and the subscription is looked at again after an exponential backoff
 * (retry_at), the later events waiting behind the failed one. An answer whose pass fails to
 * commit is sent again: delivery is at least once. The minute sweep hands over any subscription
 * still behind (consider), so a process that died holding subscriptions, or its retry times,
 * delays them a minute at most.
 */
export function startWebhookDelivery(services: Services, audience: EventAudience): WebhookDelivery {
  const log = services.log.child({ component: "webhook-delivery" });
  const agents: PostAgents = {
    // Idle connections close before a receiver's usual 5 s keep-alive does (Node's default).
    http: new HttpAgent({
      keepAlive: true,
      keepAliveMsecs: 1000,
      maxSockets: 16,
      maxFreeSockets: 16,
      timeout: 4000,
    }),
    https: new HttpsAgent({
      keepAlive: true,
      keepAliveMsecs: 1000,
      maxSockets: 16,
      maxFreeSockets: 16,
      timeout: 4000,
    }),
  };
  /** Subscriptions to look at, and from when (Date.now()). */
  const due = new Map<string, number>();
  /** Subscriptions in a pass of this process now. */
  const inFlight = new Set<string>();
  const passes = new Set<Promise<void>>();
  /** The highest event id this process has looked at; null before its first look. */
  let seenUpTo: string | null = null;
  let pollMs = ACTIVE_POLL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> = Promise.resolve();

  const consider = (ids: readonly string[], at = Date.now()) => {
    for (const id of ids) {
      const before = due.get(id);
      if (before === undefined || before > at) due.set(id, at);
    }
  };

  /** Starts passes over the subscriptions due now, while fewer than PASSES_AT_ONCE run. */
  const pump = () => {
    while (!stopped && passes.size < PASSES_AT_ONCE) {
      const now = Date.now();
      const ids: string[] = [];
      for (const [id, at] of due) {
        if (at > now || inFlight.has(id)) continue;
        ids.push(id);
        if (ids.length === PASS_SUBSCRIPTIONS) break;
      }
      if (ids.length === 0) return;
      for (const id of ids) {
        due.delete(id);
        inFlight.add(id);
      }
      const running: Promise<void> = deliverPass(services, audience, agents, ids)
        .then((outcomes) => {
          for (const outcome of outcomes) {
            if (outcome.failed) consider([outcome.subscription.id], outcome.subscription.retry_at!.getTime());
            else if (outcome.more) consider([outcome.subscription.id]);
          }
        })
        .catch((error: unknown) => {
          if (stopped) return;
          log.warn({ err: error, subscriptions: ids.length }, "webhook delivery pass failed; looking again");
          consider(ids, Date.now() + 1000);
        })
        .finally(() => {
          for (const id of ids) inFlight.delete(id);
          passes.delete(running);
          pump();
        });
      passes.add(running);
    }
  };

  /** DELIVERY_LOCK while this process delivers; the looks go through its connection. */
  let holder: SessionLock | null = null;
  const letGo = async () => {
    const held = holder;
    holder = null;
    seenUpTo = null;
    await held?.release();
  };

  const look = async () => {
    let found = false;
    try {
      holder ??= await trySessionLock(services.sql, DELIVERY_LOCK);
      if (holder !== null) found = await lookAtLog(holder.connection);
    } catch (error) {
      if (!stopped) log.warn({ err: error }, "looking for webhook events failed; looking again");
      await letGo();
    }
    pump();
    if (stopped) return;
    pollMs = holder === null ? TAKE_OVER_MS : found ? ACTIVE_POLL_MS : Math.min(IDLE_POLL_MS, pollMs * 2);
    // A backing-off subscription's retry time may come before the next look.
    let wait = pollMs;
    for (const [id, at] of due) if (!inFlight.has(id)) wait = Math.min(wait, Math.max(0, at - Date.now()));
    timer = setTimeout(() => {
      looking = look();
    }, wait);
    timer.unref();
  };
  /** Settles the log and makes due the subscriptions that want its new ids; whether there were any. */
  const lookAtLog = async (sql: Sql): Promise<boolean> => {
    // Nothing to settle for when no webhook is live (streams and events/list settle for themselves).
    await sql`select settle_events() where exists (
      select from event_subscriptions where ended_at is null and delivery = 'webhook')`;
    if (seenUpTo === null) {
      // This process's first look as the deliverer: every subscription behind, then only new ids.
      const [head] = await sql<{ id: string }[]>`select coalesce(max(id), 0)::text as id from events`;
      consider(await laggingSubscriptions(sql));
      seenUpTo = head!.id;
      return due.size > 0;
    }
    const [row] = await sql<{ head: string; wanting: string[] }[]>`
      with head as (select coalesce(max(id), ${seenUpTo}::bigint) as id from events)
      select (select id::text from head) as head, array(${subscriptionsWanting(sql, seenUpTo)}) as wanting`;
    seenUpTo = row!.head;
    consider(row!.wanting);
    return row!.wanting.length > 0;
  };
  looking = look();

  return {
    consider(ids) {
      consider(ids);
      pump();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await looking;
      await Promise.allSettled([...passes]);
      await letGo();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * The live webhook subscriptions that want an event with an id above `after` (up to the
 * statement's `head` CTE): a personal event's user's, and every one for a seat event (whose
 * audience is decided at delivery), by their kinds. A subquery returning `id`.
 */
function subscriptionsWanting(sql: Sql, after: string): postgres.PendingQuery<postgres.Row[]> {
  return sql`
    select s.id from events e join event_subscriptions s on s.user_id = e.audience_user_id
    where e.id > ${after}::bigint and e.id <= (select id from head)
      and s.ended_at is null and s.delivery = 'webhook' and (s.kinds is null or e.kind = any(s.kinds))
    union
    select s.id from events e cross join event_subscriptions s
    where e.id > ${after}::bigint and e.id <= (select id from head) and e.audience_user_id is null
      and s.ended_at is null and s.delivery = 'webhook' and (s.kinds is null or e.kind = any(s.kinds))`;
}

/**
 * Every live webhook subscription with an event after its cursor that it wants (its kinds, its
 * user's or a seat event): what a process looks at first, and what the minute sweep hands over.
 */
export async function laggingSubscriptions(sql: Sql): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select s.id from event_subscriptions s
    where s.ended_at is null and s.delivery = 'webhook'
      and exists (select from events e
                  where e.id > s.cursor and (s.kinds is null or e.kind = any(s.kinds))
                    and (e.audience_user_id is null or e.audience_user_id = s.user_id))`;
  return rows.map((row) => row.id);
}

/**
 * One pass over `ids`: claims those no other pass holds, POSTs their events, writes the attempts
 * and cursors, commits. Returns what it did for each subscription it claimed.
 */
async function deliverPass(
  services: Services,
  audience: EventAudience,
  agents: PostAgents,
  ids: string[],
): Promise<Outcome[]> {
  // No settle here: the look that made these subscriptions due settled the ids it saw.
  return await pipelinedTransaction(services.sql, async (tx, commitWith) => {
    const rows = await tx<
      (EventSubscriptionRow & { events: (Omit<EventRow, "occurred_at"> & { occurred_at: string })[] })[]
    >`
      with claimed as (
        select ${tx.unsafe(SUBSCRIPTION_COLUMNS)}, cursor as cursor_id from event_subscriptions
        where id = any(${ids}::text[]) for update skip locked
      )
      select c.*, coalesce((
        select json_agg(e order by e.id::bigint) from (
          select id::text as id, kind, occurred_at, audience_user_id, problem_id, review_process_id, node_id, data
          from events
          where id > c.cursor_id and (audience_user_id is null or audience_user_id = c.user_id)
            and (c.kinds is null or kind = any(c.kinds))
          order by events.id limit ${BATCH}
        ) e
        where c.ended_at is null and c.url is not null and (c.retry_at is null or c.retry_at <= now())
      ), '[]') as events
      from claimed c`;
    const started = performance.now();
    const outcomes: Outcome[] = [];
    await Promise.all(
      rows.map(async (row) => {
        const { cursor_id: _, ...subscription } = row as typeof row & { cursor_id: unknown };
        if (subscription.ended_at || subscription.url === null) return;
        const claimed: Claimed = {
          ...subscription,
          events: row.events.map((event) => ({
            ...event,
            occurred_at: new Date(event.occurred_at),
          })),
        };
        // Wall time, not services.clock(): retry_at is compared with the database's now().
        if (claimed.retry_at && claimed.retry_at > new Date()) {
          // Woken early by a new event: the failed one's backoff still rules.
          outcomes.push({
            subscription: claimed,
            attempts: [],
            cursor: claimed.cursor,
            failed: true,
            more: true,
          });
          return;
        }
        outcomes.push(await deliverSubscription(services, tx, audience, agents, claimed, started));
      }),
    );
    await commitWith(tx`
      with attempts as (
        insert into event_deliveries (subscription_id, event_id, attempted_at, status_code, delivered, error, duration_ms)
        select subscription_id, event_id, attempted_at, status_code, delivered, error, duration_ms
        from jsonb_to_recordset(${tx.json(outcomes.flatMap((o) => o.attempts) as unknown as postgres.JSONValue)})
          as a(subscription_id text, event_id bigint, attempted_at timestamptz, status_code integer,
               delivered boolean, error text, duration_ms integer)
      )
      update event_subscriptions s set cursor = u.cursor, failures = u.failures, retry_at = u.retry_at
      from jsonb_to_recordset(${tx.json(changes(outcomes) as unknown as postgres.JSONValue)})
        as u(id text, cursor bigint, failures integer, retry_at timestamptz)
      where s.id = u.id`);
    return outcomes;
  });
}

/** The subscription rows a pass changes: cursor, failures and retry time, as the outcomes say. */
function changes(outcomes: Outcome[]) {
  return outcomes.flatMap(({ subscription, cursor, failed, attempts }) => {
    if (failed && attempts.length === 0) return []; // still backing off: nothing was tried
    if (failed)
      return [
        { id: subscription.id, cursor, failures: subscription.failures, retry_at: subscription.retry_at },
      ];
    if (cursor === subscription.cursor && subscription.failures === 0) return [];
    return [{ id: subscription.id, cursor, failures: 0, retry_at: null }];
  });
}

/**
 * POSTs one claimed subscription's events in id order, passing over those its user may not see
 * now; stops at the first that is not delivered (then sets the subscription's failures and
 * retry_at on the row object, for `changes`) or when the pass's budget is spent.
 */
async function deliverSubscription(
  services: Services,
  tx: Sql,
  audience: EventAudience,
  agents: PostAgents,
  subscription: Claimed,
  passStarted: number,
): Promise<Outcome> {
  const secret = webhookSecret(services.signingSecret, subscription.id);
  const attempts: DeliveryAttempt[] = [];
  let cursor = subscription.cursor;
  for (const event of subscription.events) {
    if (performance.now() - passStarted > PASS_BUDGET_MS)
      return { subscription, attempts, cursor, failed: false, more: true };
    const visible =
      event.audience_user_id === subscription.user_id || (await audience(tx, subscription.user_id, event));
    if (visible) {
      const attempt = await post(services, agents, subscription, event, secret);
      attempts.push(attempt);
      if (!attempt.delivered) {
        subscription.failures += 1;
        subscription.retry_at = new Date(Date.now() + backoffMs(subscription.failures));
        return { subscription, attempts, cursor, failed: true, more: true };
      }
    }
    cursor = event.id;
  }
  return { subscription, attempts, cursor, failed: false, more: subscription.events.length === BATCH };
}

/** POSTs one event, signed, through the SSRF-safe client; the attempt as the log keeps it. */
async function post(
  services: Services,
  agents: PostAgents,
  subscription: EventSubscriptionRow,
  event: EventRow,
  secret: string,
): Promise<DeliveryAttempt> {
  const body = JSON.stringify({ ...eventView(event), subscription_id: subscription.id });
  const attemptedAt = new Date();
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const answer = await safePost(
      subscription.url!,
      body,
      {
        "content-type": "application/json",
        "user-agent": "svc-webhooks/1",
        "x-svc-event": event.kind,
        "x-svc-event-id": event.id,
        "x-svc-delivery": randomUUID(),
        "x-svc-signature-256": webhookSignature(secret, body),
      },
      { allowLoopback: services.allowLoopbackWebhooks === true, agents },
    );
    status = answer.status;
    if (status < 200 || status > 299) error = `answered HTTP ${status}: ${answer.body.slice(0, 500)}`;
  } catch (failure) {
    error = (failure as Error).message;
  }
  webhookDeliveries.labels(error === null ? "delivered" : status === null ? "failed" : "http_error").inc();
  return {
    subscription_id: subscription.id,
    event_id: event.id,
    attempted_at: attemptedAt,
    status_code: status,
    delivered: error === null,
    error: error?.slice(0, 2000) ?? null,
    duration_ms: Math.round(performance.now() - started),
  };
}
