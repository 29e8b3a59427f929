import { randomUUID } from "node:crypto";
import type { Sql } from "../core/db/connect-sql.ts";
import { safePost } from "../core/http/safe-post.ts";
import { TaskName } from "../core/jobs/task-name.ts";
import { webhookDeliveries } from "../core/metrics/metrics.ts";
import type { Services } from "../core/services/services.ts";
import type { EventAudience } from "./event-audience.ts";
import { EVENT_COLUMNS, type EventRow, eventView } from "./event-record.ts";
import { type EventSubscriptionRow, SUBSCRIPTION_COLUMNS } from "./event-subscription.ts";
import { settleEvents } from "./settle-events.ts";
import { webhookSecret, webhookSignature } from "./webhook-secret.ts";

/** How many batches one job delivers before it hands on to a fresh job, so no job runs for ever. */
const BATCHES_PER_JOB = 20;
/** Events examined per transaction; each is POSTed in order before the transaction commits. */
const BATCH = 20;
/** The longest wait between attempts at one event. */
const MAX_BACKOFF_MS = 3600_000;

/** The wait before the next attempt after `failures` failed ones: 1 s, 2 s, 4 s ... one hour. */
export function backoffMs(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
}

/**
 * The deliver_events task: POSTs a webhook subscription's events after its cursor, one at a time
 * in id order, in batches, each batch a transaction holding the subscription's row lock (so two
 * jobs of one subscription never deliver at once or out of order). Events its user may not see
 * now are passed over. A 2xx answer delivers an event; any other outcome stops the batch, is
 * counted, and the subscription's next job is scheduled after an exponential backoff, the later
 * events waiting behind the failed one. The cursor and every attempt (in event_deliveries) are
 * written when the batch commits; an answer whose batch fails to commit is sent again, so
 * delivery is at least once.
 */
export async function deliverEvents(
  services: Services,
  subscriptionId: string,
  audience: EventAudience,
): Promise<void> {
  for (let batch = 0; batch < BATCHES_PER_JOB; batch++) {
    // Before the batch's transaction, which holds the subscription's lock while it POSTs.
    await settleEvents(services.sql);
    const outcome = await services.sql.begin((tx) => deliverBatch(services, tx, subscriptionId, audience));
    if (outcome !== "more") return;
  }
  await wake(services.sql, subscriptionId, null);
}

/** One attempt, as the delivery log keeps it. */
interface Attempt {
  subscription_id: string;
  event_id: string;
  attempted_at: Date;
  status_code: number | null;
  delivered: boolean;
  error: string | null;
  duration_ms: number;
}

async function deliverBatch(
  services: Services,
  tx: Sql,
  subscriptionId: string,
  audience: EventAudience,
): Promise<"more" | "idle" | "failed"> {
  const [subscription] = await tx<EventSubscriptionRow[]>`
    select ${tx.unsafe(SUBSCRIPTION_COLUMNS)} from event_subscriptions where id = ${subscriptionId} for update`;
  if (!subscription || subscription.ended_at || subscription.url === null) return "idle";
  // Wall time, not services.clock(): backoff is scheduled in graphile-worker's run_at, wall time.
  if (subscription.retry_at && subscription.retry_at > new Date()) {
    // Woken early by a new event: the failed one's backoff still rules.
    await wake(tx, subscriptionId, subscription.retry_at);
    return "idle";
  }
  const candidates = await tx<EventRow[]>`
    select ${tx.unsafe(EVENT_COLUMNS)} from events
    where id > ${subscription.cursor}::bigint
      and (audience_user_id is null or audience_user_id = ${subscription.user_id})
      ${subscription.kinds ? tx`and kind = any(${subscription.kinds})` : tx``}
    order by events.id limit ${BATCH}`;
  const secret = webhookSecret(services.signingSecret, subscriptionId);
  const attempts: Attempt[] = [];
  let cursor = subscription.cursor;
  let failed = false;
  for (const event of candidates) {
    const visible =
      event.audience_user_id === subscription.user_id || (await audience(tx, subscription.user_id, event));
    if (visible) {
      const attempt = await post(services, { ...subscription, url: subscription.url }, event, secret);
      attempts.push(attempt);
      if (!attempt.delivered) {
        failed = true;
        break;
      }
    }
    cursor = event.id;
  }
  if (attempts.length > 0) {
    await tx`
      insert into event_deliveries ${tx(attempts, "subscription_id", "event_id", "attempted_at", "status_code", "delivered", "error", "duration_ms")}`;
  }
  if (failed) {
    const failures = subscription.failures + 1;
    const retryAt = new Date(Date.now() + backoffMs(failures));
    await tx`
      update event_subscriptions set cursor = ${cursor}::bigint, failures = ${failures}, retry_at = ${retryAt}
      where id = ${subscriptionId}`;
    await wake(tx, subscriptionId, retryAt);
    return "failed";
  }
  if (cursor !== subscription.cursor || subscription.failures > 0) {
    await tx`
      update event_subscriptions set cursor = ${cursor}::bigint, failures = 0, retry_at = null
      where id = ${subscriptionId}`;
  }
  return candidates.length === BATCH ? "more" : "idle";
}

/** POSTs one event, signed, through the SSRF-safe client; the attempt as the log keeps it. */
async function post(
  services: Services,
  subscription: EventSubscriptionRow & { url: string },
  event: EventRow,
  secret: string,
): Promise<Attempt> {
  const body = JSON.stringify({ ...eventView(event), subscription_id: subscription.id });
  const attemptedAt = new Date();
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
        "x-svc-event": event.kind,
        "x-svc-event-id": event.id,
        "x-svc-delivery": randomUUID(),
        "x-svc-signature-256": webhookSignature(secret, body),
      },
      { allowLoopback: services.allowLoopbackWebhooks === true },
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

/** Queues the subscription's delivery job, at `runAt` or now. */
async function wake(sql: Sql, subscriptionId: string, runAt: Date | null): Promise<void> {
  await sql`
    select graphile_worker.add_job(${TaskName.deliverEvents}, json_build_object('subscription_id', ${subscriptionId}::text),
      max_attempts => 5, job_key => ${`deliver_events:${subscriptionId}`},
      run_at => ${runAt})`;
}
