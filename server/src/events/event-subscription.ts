import type { EventDelivery, EventKind } from "@svc/schemas";

/** One row of event_subscriptions. */
export interface EventSubscriptionRow {
  id: string;
  user_id: string;
  kinds: EventKind[] | null;
  delivery: EventDelivery;
  /** The webhook's URL; null for a stream. */
  url: string | null;
  cursor: string;
  failures: number;
  retry_at: Date | null;
  created_at: Date;
  ended_at: Date | null;
  /** The stream serving a stream subscription now, and when it last polled. */
  stream_holder: string | null;
  stream_seen_at: Date | null;
}

export const SUBSCRIPTION_COLUMNS =
  "id, user_id, kinds, delivery, url, cursor::text as cursor, failures, retry_at, created_at, ended_at, stream_holder, stream_seen_at";

/** A subscription as its owner sees it. */
export function subscriptionView(row: EventSubscriptionRow) {
  return {
    subscription_id: row.id,
    kinds: row.kinds,
    delivery: row.url === null ? { type: row.delivery } : { type: row.delivery, url: row.url },
    created_at: row.created_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
  };
}
