import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { type EventSubscriptionRow, SUBSCRIPTION_COLUMNS, subscriptionView } from "./event-subscription.ts";

/**
 * events/unsubscribe: ends a subscription of `userId`; nothing more is delivered to it. Someone
 * else's subscription is not_found, never a hint that it exists. Ending it again returns it as
 * it ended.
 */
export async function unsubscribeEvents(services: Services, userId: string, subscriptionId: string) {
  const [row] = await services.sql<EventSubscriptionRow[]>`
    update event_subscriptions set ended_at = coalesce(ended_at, ${services.clock()})
    where id = ${subscriptionId} and user_id = ${userId}
    returning ${services.sql.unsafe(SUBSCRIPTION_COLUMNS)}`;
  if (!row) {
    throw new ServiceError("not_found", `you have no event subscription "${subscriptionId}"`, {
      subscription_id: subscriptionId,
    });
  }
  return { subscription: subscriptionView(row) };
}
