import type { Sql } from "../core/db/connect-sql.ts";
import type { DeliveryAttempt } from "./delivery-attempt.ts";
import { type EventSubscriptionRow, SUBSCRIPTION_COLUMNS, subscriptionView } from "./event-subscription.ts";

/** A stream that polled this recently is open (stream-events.ts polls every second). */
const STREAM_OPEN_MS = 30_000;

/**
 * events/subscriptions: the caller's own subscriptions (live ones; ended ones too with
 * `include_ended`), oldest first, each with its delivery state: the cursor (last event delivered
 * or passed over), consecutive failures and when the next attempt is due, the last attempt of a
 * webhook, and whether a stream is open now. Nobody else's are ever listed.
 */
export async function listSubscriptions(sql: Sql, userId: string, input: { include_ended: boolean }) {
  const rows = await sql<EventSubscriptionRow[]>`
    select ${sql.unsafe(SUBSCRIPTION_COLUMNS)} from event_subscriptions
    where user_id = ${userId} ${input.include_ended ? sql`` : sql`and ended_at is null`}
    order by created_at, id limit 200`;
  const ids = rows.map((row) => row.id);
  const last =
    ids.length === 0
      ? []
      : await sql<Omit<DeliveryAttempt, "duration_ms">[]>`
          select distinct on (subscription_id) subscription_id, event_id::text as event_id, attempted_at,
            status_code, delivered, error
          from event_deliveries where subscription_id in ${sql(ids)}
          order by subscription_id, id desc`;
  const now = Date.now();
  return {
    subscriptions: rows.map((row) => {
      const attempt = last.find((a) => a.subscription_id === row.id);
      return {
        ...subscriptionView(row),
        state: {
          cursor: row.cursor,
          failures: row.failures,
          retry_at: row.retry_at?.toISOString() ?? null,
          last_attempt: attempt
            ? {
                event_id: attempt.event_id,
                attempted_at: attempt.attempted_at.toISOString(),
                status_code: attempt.status_code,
                delivered: attempt.delivered,
                error: attempt.error,
              }
            : null,
          stream_open:
            row.delivery === "stream" &&
            row.ended_at === null &&
            row.stream_seen_at !== null &&
            now - row.stream_seen_at.getTime() < STREAM_OPEN_MS,
        },
      };
    }),
  };
}
