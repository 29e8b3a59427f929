import { randomUUID } from "node:crypto";
import type { Sql } from "../core/db/connect-sql.ts";
import { safePost } from "../core/http/safe-post.ts";
import { TaskName } from "../core/jobs/task-name.ts";
import type { Services } from "../core/services/services.ts";
import type { EventAudience } from "./event-audience.ts";
import { EVENT_COLUMNS, type EventRow, eventView } from "./event-record.ts";
import { type EventSubscriptionRow, SUBSCRIPTION_COLUMNS } from "./event-subscription.ts";
import { webhookSecret, webhookSignature } from "./webhook-secret.ts";

/** How many events one job delivers before it hands on to a fresh job, so no job runs for ever. */
const EVENTS_PER_JOB = 200;
/** The longest wait between attempts at one event. */
const MAX_BACKOFF_MS = 3600_000;

/** The wait before the next attempt after `failures` failed ones: 1 s, 2 s, 4 s ... one hour. */
export function backoffMs(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
}

/**
 * The deliver_events task: POSTs a webhook subscription's events after its cursor, one at a
 * time in id order, each in a transaction holding the subscription's row lock (so two jobs of one
 * subscription never deliver at once or out of order). Events its user may not see now are
 * passed over. A 2xx answer advances the cursor; any other outcome is kept in the delivery log,
 * counted, and the subscription's next job is scheduled after an exponential backoff, the later
 * events waiting behind the failed one. Every attempt is logged in event_deliveries.
 */
export async function deliverEvents(
  services: Services,
  subscriptionId: string,
  audience: EventAudience,
): Promise<void> {
  for (let sent = 0; sent < EVENTS_PER_JOB; sent++) {
    const outcome = await services.sql.begin((tx) => deliverNext(services, tx, subscriptionId, audience));
    if (outcome !== "delivered") return;
  }
  await wake(services.sql, subscriptionId, null);
}

async function deliverNext(
  services: Services,
  tx: Sql,
  subscriptionId: string,
  audience: EventAudience,
): Promise<"delivered" | "idle" | "failed"> {
  const [subscription] = await tx<EventSubscriptionRow[]>`
    select ${tx.unsafe(SUBSCRIPTION_COLUMNS)} from event_subscriptions where id = ${subscriptionId} for update`;
  if (!subscription || subscription.ended_at) return "idle";
  // Wall time, not services.clock(): backoff is scheduled in graphile-worker's run_at, wall time.
  const now = new Date();
  if (subscription.retry_at && subscription.retry_at > now) {
    // Woken early by a new event: the failed one's backoff still rules.
    await wake(tx, subscriptionId, subscription.retry_at);
    return "idle";
  }
  const candidates = await tx<EventRow[]>`
    select ${tx.unsafe(EVENT_COLUMNS)} from events
    where id > ${subscription.cursor}::bigint
      and (audience_user_id is null or audience_user_id = ${subscription.user_id})
      ${subscription.kinds ? tx`and kind = any(${subscription.kinds})` : tx``}
    order by events.id limit 50`;
  let next: EventRow | undefined;
  let passed = subscription.cursor;
  for (const candidate of candidates) {
    if (
      candidate.audience_user_id === subscription.user_id ||
      (await audience(tx, subscription.user_id, candidate))
    ) {
      next = candidate;
      break;
    }
    passed = candidate.id;
  }
  if (!next) {
    if (passed !== subscription.cursor)
      await tx`update event_subscriptions set cursor = ${passed}::bigint where id = ${subscriptionId}`;
    // A full page of events it may not see: more may follow.
    return candidates.length === 50 ? "delivered" : "idle";
  }
  const deliveryId = randomUUID();
  const body = JSON.stringify({ ...eventView(next), subscription_id: subscriptionId });
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const answer = await safePost(
      subscription.url,
      body,
      {
        "content-type": "application/json",
        "user-agent": "svc-webhooks/1",
        "x-svc-event": next.kind,
        "x-svc-event-id": next.id,
        "x-svc-delivery": deliveryId,
        "x-svc-signature-256": webhookSignature(webhookSecret(services.signingSecret, subscriptionId), body),
      },
      { allowLoopback: services.allowLoopbackWebhooks === true },
    );
    status = answer.status;
    if (status < 200 || status > 299) error = `answered HTTP ${status}: ${answer.body.slice(0, 500)}`;
  } catch (failure) {
    error = (failure as Error).message;
  }
  const delivered = error === null;
  await tx`
    insert into event_deliveries (subscription_id, event_id, attempted_at, status_code, delivered, error, duration_ms)
    values (${subscriptionId}, ${next.id}::bigint, ${now}, ${status}, ${delivered}, ${error?.slice(0, 2000) ?? null},
      ${Math.round(performance.now() - started)})`;
  if (delivered) {
    await tx`
      update event_subscriptions set cursor = ${next.id}::bigint, failures = 0, retry_at = null
      where id = ${subscriptionId}`;
    return "delivered";
  }
  const failures = subscription.failures + 1;
  const retryAt = new Date(now.getTime() + backoffMs(failures));
  await tx`
    update event_subscriptions set cursor = ${passed}::bigint, failures = ${failures}, retry_at = ${retryAt}
    where id = ${subscriptionId}`;
  await wake(tx, subscriptionId, retryAt);
  return "failed";
}

/** Queues the subscription's delivery job, at `runAt` or now. */
async function wake(sql: Sql, subscriptionId: string, runAt: Date | null): Promise<void> {
  await sql`
    select graphile_worker.add_job(${TaskName.deliverEvents}, json_build_object('subscription_id', ${subscriptionId}::text),
      max_attempts => 5, job_key => ${`deliver_events:${subscriptionId}`},
      run_at => ${runAt})`;
}
