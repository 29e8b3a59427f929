import { TaskName } from "../core/jobs/task-name.ts";
import type { Services } from "../core/services/services.ts";
import { settleEvents } from "./settle-events.ts";

/**
 * Queues the delivery job of every live webhook subscription with an event after its cursor that
 * it wants (its kinds, its user's or a seat event), for the minute sweep: a writer's wake-up can be
 * lost when a worker takes the subscription's waiting job between graphile-worker's `add_job`
 * clearing the keys of running jobs and inserting its own (the job runs without the writer's
 * uncommitted event and nothing else is queued). Such an event then waits a minute at most, not
 * until the subscription's next event. Returns how many subscriptions it woke.
 */
export async function wakeLaggingSubscriptions(services: Services): Promise<number> {
  await settleEvents(services.sql);
  const woken = await services.sql`
    select graphile_worker.add_job(${TaskName.deliverEvents}, json_build_object('subscription_id', s.id),
      max_attempts => 5, job_key => 'deliver_events:' || s.id, job_key_mode => 'preserve_run_at')
    from event_subscriptions s
    where s.ended_at is null and s.delivery = 'webhook'
      and exists (select from events e
                  where e.id > s.cursor and (s.kinds is null or e.kind = any(s.kinds))
                    and (e.audience_user_id is null or e.audience_user_id = s.user_id))`;
  return woken.length;
}
