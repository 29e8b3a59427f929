import type { EventKind } from "@svc/schemas";
import { IdPrefix } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import { refusedUrl } from "../core/http/safe-post.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { type EventSubscriptionRow, SUBSCRIPTION_COLUMNS, subscriptionView } from "./event-subscription.ts";
import { settleEvents } from "./settle-events.ts";
import { webhookSecret } from "./webhook-secret.ts";

/** events/subscribe's parameters, validated. */
export interface SubscribeEventsInput {
  kinds?: readonly EventKind[] | undefined;
  delivery: { type: "webhook"; url: string } | { type: "stream" };
}

/** How many live subscriptions one user may hold. */
export const MAX_SUBSCRIPTIONS_PER_USER = 20;

/**
 * events/subscribe: a subscription of `userId` to the events they may see of `kinds` (every kind
 * when absent), delivered from the next event on; earlier ones are read with events/list. A
 * webhook's URL is checked now (https, no credentials, no refused literal address) and its host
 * again at every delivery, after resolution; the answer carries its signing secret, shown only
 * here. A stream subscription has no URL and no secret: its events go out on the `events/stream`
 * request an agent holds open (stream-events.ts).
 */
export async function subscribeEvents(services: Services, userId: string, input: SubscribeEventsInput) {
  let url: string | null = null;
  if (input.delivery.type === "webhook") {
    const why = refusedUrl(input.delivery.url, services.allowLoopbackWebhooks === true);
    if (why) {
      throw new ServiceError("invalid_input", `delivery.url ${why}: give a public https:// address`, {
        field: "delivery.url",
      });
    }
    url = input.delivery.url;
  }
  const kinds = input.kinds && input.kinds.length > 0 ? [...new Set(input.kinds)] : null;
  const id = randomId(IdPrefix.eventSubscription);
  const now = services.clock();
  await settleEvents(services.sql);
  const row = await services.sql.begin(async (tx) => {
    await tx`select id from users where id = ${userId} for update`;
    const [{ live }] = (await tx`
      select count(*)::int as live from event_subscriptions where user_id = ${userId} and ended_at is null`) as unknown as [
      { live: number },
    ];
    if (live >= MAX_SUBSCRIPTIONS_PER_USER) {
      throw new ServiceError(
        "conflict",
        `you hold ${live} live subscriptions, the most one user may: end one with events/unsubscribe`,
        { limit: MAX_SUBSCRIPTIONS_PER_USER },
      );
    }
    // Delivery starts after the newest event committed now: the subscription is for what comes next.
    const [created] = await tx<EventSubscriptionRow[]>`
      insert into event_subscriptions (id, user_id, kinds, delivery, url, cursor, created_at)
      values (${id}, ${userId}, ${kinds}, ${input.delivery.type}, ${url},
        coalesce((select max(id) from events), 0), ${now})
      returning ${tx.unsafe(SUBSCRIPTION_COLUMNS)}`;
    return created!;
  });
  const subscription = subscriptionView(row);
  return url === null
    ? { subscription }
    : { subscription, secret: webhookSecret(services.signingSecret, id) };
}
