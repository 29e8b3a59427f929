import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { StreamEndReason } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { EventAudience } from "./event-audience.ts";
import { EVENT_COLUMNS, type EventRow, type EventView, eventView } from "./event-record.ts";
import { type EventSubscriptionRow, SUBSCRIPTION_COLUMNS } from "./event-subscription.ts";
import { cursorPosition } from "./list-events.ts";
import { settleEvents } from "./settle-events.ts";

/** The notification each event goes out as, on the events/stream request's own SSE response. */
export const EVENT_NOTIFICATION = "notifications/svc/event";

/** How often a stream polls the log; the log in PostgreSQL is the source, so any replica serves. */
export const STREAM_POLL_MS = 1000;
/** A stream that has not polled for this long is gone (its replica died): it no longer counts. */
const STREAM_STALE_MS = 30_000;
/** How many streams one user holds open at once, across replicas. */
export const MAX_OPEN_STREAMS_PER_USER = 5;
/** Bytes sent but not yet taken by the connection past which the reader is too slow and is cut. */
export const STREAM_BUFFER_BYTES = 1024 * 1024;
/** Events read per poll; a full batch is followed at once by the next. */
const BATCH = 100;
/** A keep-alive (a progress notification, when the request asked for progress) at least this often. */
const KEEPALIVE_MS = 15_000;

/** events/stream's parameters, validated. */
export interface StreamEventsInput {
  subscription_id: string;
  /** The last event id the agent received: the stream resumes after it (default: the subscription's cursor). */
  cursor?: string | undefined;
}

/** What a stream writes to and watches: the SDK request's notifications and its connection. */
export interface StreamIo {
  /** Sends one notification on the request's stream; resolves once it is queued. */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** Aborted when the client cancels or the connection drops. */
  signal: AbortSignal;
  /** Aborted when the server begins to close: the stream ends with `server_closing`. */
  closing: AbortSignal;
  /** Bytes the connection has taken so far (the socket's count), to measure the backlog. */
  bytesTaken(): number;
  /** Whether the caller's token is still valid (checked once per poll). */
  stillAuthorized(): Promise<boolean>;
  /** The request's progress token, when it asked for progress: keep-alives use it. */
  progressToken?: string | number | undefined;
  /** The poll interval; tests shorten it. */
  pollMs?: number;
}

/** The result an events/stream request ends with. */
export interface StreamEnd {
  subscription_id: string;
  /** The last event id sent: reconnect with it to resume with nothing lost. */
  cursor: string;
  ended: StreamEndReason;
  delivered: number;
}

/**
 * events/stream: holds the request open and sends the subscription's events after `cursor` (or
 * its stored cursor) that `userId` may see now, in id order, each as an `notifications/svc/event`
 * notification `{subscription_id, event}` on the request's own response stream. The log is polled
 * every STREAM_POLL_MS; the subscription row records which stream holds it (a new one takes over)
 * and the cursor sent so far. The stream ends with a result naming why (StreamEndReason) when the
 * server closes, the reader lags past STREAM_BUFFER_BYTES, another stream takes the subscription
 * over, the subscription ends, or the token is revoked; a cancelled request just stops (null:
 * nobody is there to read a result).
 */
export async function streamEvents(
  services: Services,
  userId: string,
  input: StreamEventsInput,
  io: StreamIo,
  audience: EventAudience,
): Promise<StreamEnd | null> {
  const { sql } = services;
  const holder = randomUUID();
  const from = input.cursor === undefined ? undefined : cursorPosition(input.cursor);
  const subscription = await takeOver(services, userId, input.subscription_id, holder);
  try {
    return await run(services, userId, subscription, from ?? subscription.cursor, holder, io, audience);
  } finally {
    // However it ended, this stream no longer counts as open (a takeover already moved the hold).
    await sql`
      update event_subscriptions set stream_holder = null where id = ${subscription.id} and stream_holder = ${holder}`;
  }
}

async function run(
  services: Services,
  userId: string,
  subscription: EventSubscriptionRow,
  from: string,
  holder: string,
  io: StreamIo,
  audience: EventAudience,
): Promise<StreamEnd | null> {
  const { sql } = services;
  let cursor = from;
  const pollMs = io.pollMs ?? STREAM_POLL_MS;
  const takenAtStart = io.bytesTaken();
  let sentBytes = 0;
  let delivered = 0;
  let progress = 0;
  let quietSince = Date.now();
  const end = (ended: StreamEndReason): StreamEnd => ({
    subscription_id: subscription.id,
    cursor,
    ended,
    delivered,
  });
  for (;;) {
    if (io.signal.aborted) return null;
    if (io.closing.aborted) return end(StreamEndReason.serverClosing);
    if (!(await io.stillAuthorized())) return end(StreamEndReason.tokenRevoked);
    await settleEvents(sql);
    const rows = await sql<EventRow[]>`
      select ${sql.unsafe(EVENT_COLUMNS)} from events
      where id > ${cursor}::bigint
        and (audience_user_id is null or audience_user_id = ${userId})
        ${subscription.kinds ? sql`and kind = any(${subscription.kinds})` : sql``}
      order by events.id limit ${BATCH}`;
    for (const row of rows) {
      if (io.signal.aborted) return null;
      if (row.audience_user_id === userId || (await audience(sql, userId, row))) {
        const params: { subscription_id: string; event: EventView } = {
          subscription_id: subscription.id,
          event: eventView(row),
        };
        await io.notify(EVENT_NOTIFICATION, params);
        delivered++;
        // The SSE frame's size, near enough: the JSON-RPC envelope and the framing are small.
        sentBytes += Buffer.byteLength(JSON.stringify(params)) + 80;
        quietSince = Date.now();
      }
      cursor = row.id;
      if (sentBytes - (io.bytesTaken() - takenAtStart) > STREAM_BUFFER_BYTES) {
        await record(services, subscription.id, holder, cursor);
        return end(StreamEndReason.slowReader);
      }
    }
    const still = await record(services, subscription.id, holder, cursor);
    if (still !== "held") return end(still);
    if (io.progressToken !== undefined && Date.now() - quietSince >= KEEPALIVE_MS) {
      await io.notify("notifications/progress", {
        progressToken: io.progressToken,
        progress: ++progress,
        message: "keep-alive",
      });
      quietSince = Date.now();
    }
    if (rows.length === BATCH) continue;
    try {
      await sleep(pollMs, undefined, { signal: AbortSignal.any([io.signal, io.closing]) });
    } catch {
      // Woken by a cancel or a closing server: the loop's first checks say which.
    }
  }
}

/**
 * Makes this stream the holder of the caller's stream subscription, refusing an unknown or
 * someone else's (not_found), a webhook or ended one (invalid_input), and a stream past the
 * caller's MAX_OPEN_STREAMS_PER_USER (conflict). The user's row lock orders concurrent opens.
 */
async function takeOver(
  services: Services,
  userId: string,
  subscriptionId: string,
  holder: string,
): Promise<EventSubscriptionRow> {
  return await services.sql.begin(async (tx) => {
    await tx`select id from users where id = ${userId} for update`;
    const [row] = await tx<EventSubscriptionRow[]>`
      select ${tx.unsafe(SUBSCRIPTION_COLUMNS)} from event_subscriptions
      where id = ${subscriptionId} and user_id = ${userId} for update`;
    if (!row) {
      throw new ServiceError("not_found", `you have no event subscription "${subscriptionId}"`, {
        subscription_id: subscriptionId,
      });
    }
    if (row.delivery !== "stream" || row.ended_at) {
      throw new ServiceError(
        "invalid_input",
        row.ended_at
          ? `subscription ${subscriptionId} ended at ${row.ended_at.toISOString()}: subscribe again with events/subscribe {"delivery": {"type": "stream"}}`
          : `subscription ${subscriptionId} delivers to a webhook; events/stream serves a subscription made with {"delivery": {"type": "stream"}}`,
        { field: "subscription_id" },
      );
    }
    const now = new Date();
    const [{ open }] = (await tx`
      select count(*)::int as open from event_subscriptions
      where user_id = ${userId} and ended_at is null and id <> ${subscriptionId} and stream_holder is not null
        and stream_seen_at > ${new Date(now.getTime() - STREAM_STALE_MS)}`) as unknown as [{ open: number }];
    if (open >= MAX_OPEN_STREAMS_PER_USER) {
      throw new ServiceError(
        "conflict",
        `you hold ${open} open event streams, the most one user may: close one (cancel its events/stream request) or read events/list`,
        { limit: MAX_OPEN_STREAMS_PER_USER },
      );
    }
    await tx`
      update event_subscriptions set stream_holder = ${holder}, stream_seen_at = ${now}
      where id = ${subscriptionId}`;
    return row;
  });
}

/**
 * Writes the cursor sent so far and this poll's time, while this stream still holds the
 * subscription; otherwise says why it no longer does.
 */
async function record(
  services: Services,
  subscriptionId: string,
  holder: string,
  cursor: string,
): Promise<"held" | typeof StreamEndReason.replaced | typeof StreamEndReason.unsubscribed> {
  const [row] = await services.sql<{ ended: boolean; held: boolean }[]>`
    update event_subscriptions
    set cursor = case when stream_holder = ${holder} and ended_at is null then ${cursor}::bigint else cursor end,
      stream_seen_at = case when stream_holder = ${holder} and ended_at is null then ${new Date()} else stream_seen_at end
    where id = ${subscriptionId}
    returning ended_at is not null as ended, stream_holder = ${holder} as held`;
  if (!row || row.ended) return StreamEndReason.unsubscribed;
  return row.held ? "held" : StreamEndReason.replaced;
}
