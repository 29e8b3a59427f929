import { TaskName } from "../core/jobs/task-name.ts";
import type { Services } from "../core/services/services.ts";
import { settleEvents } from "./settle-events.ts";
import { laggingSubscriptions } from "./webhook-delivery.ts";

/**
 * Queues a deliver_events job for every live webhook subscription with an event after its cursor
 * that it wants, for the minute sweep: the worker that takes it looks at the subscription
 * (WebhookDelivery.consider). Every worker process's webhook delivery looks at each newly
 * settled id, so this only makes good what a process took with it: a subscription it held when
 * killed (the others had passed over it as held), or its backoff timers. Such an event then
 * waits a minute at most. Returns how many subscriptions it woke.
 */
export async function wakeLaggingSubscriptions(services: Services): Promise<number> {
  await settleEvents(services.sql);
  const lagging = await laggingSubscriptions(services.sql);
  if (lagging.length === 0) return 0;
  const woken = await services.sql`
    select graphile_worker.add_job(${TaskName.deliverEvents}, json_build_object('subscription_id', id),
      max_attempts => 5, job_key => 'deliver_events:' || id, job_key_mode => 'preserve_run_at')
    from unnest(${lagging}::text[]) id`;
  return woken.length;
}
