import { EventKind } from "@svc/schemas";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import { appendEvent } from "../../src/events/append-event.ts";
import { wakeLaggingSubscriptions } from "../../src/events/wake-lagging-subscriptions.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { type AgentClient, connectAgent } from "./support/agent-client.ts";
import { commitEvent } from "./support/commit-event.ts";
import { WebhookReceiver } from "./support/webhook-receiver.ts";

/** Webhook delivery by the worker: retries with backoff, redirects not followed, the delivery log, unsubscribing. */
describeWithDatabase("webhook delivery", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let worker: Runner;
  const receivers: WebhookReceiver[] = [];
  const users: Record<string, SeededUser> = {};
  const agents: AgentClient[] = [];

  beforeAll(async () => {
    services = { ...testServices(db.sql), allowLoopbackWebhooks: true };
    app = await startApp(services);
    worker = await startWorker(services, { pollInterval: 100 });
    for (const handle of ["dan-wh", "eve-wh"])
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read", "contribute"] });
  }, 60_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await worker?.stop();
    await app?.close();
    for (const receiver of receivers) await receiver.stop();
  });

  async function subscribed(handle: string, kinds?: string[]) {
    const receiver = new WebhookReceiver();
    receivers.push(receiver);
    const url = await receiver.start();
    const agent = await connectAgent(app.url, users[handle]!.token);
    agents.push(agent);
    const { subscription, secret } = await agent.method("events/subscribe", {
      ...(kinds && { kinds }),
      delivery: { type: "webhook", url },
    });
    receiver.secret = secret;
    return { receiver, agent, subscriptionId: subscription.subscription_id as string };
  }

  const personalEvent = (userId: string, n: number) =>
    commitEvent(db.sql, {
      kind: EventKind.runFinished,
      occurredAt: new Date(),
      audienceUserId: userId,
      data: { n },
    });

  it("retries a failed delivery with backoff, follows no redirect, keeps every attempt, and delivers in order", async () => {
    const dan = users["dan-wh"]!.id;
    const { receiver, subscriptionId } = await subscribed("dan-wh");
    receiver.statuses = [500, 302];
    const first = await personalEvent(dan, 1);
    const second = await personalEvent(dan, 2);
    await receiver.until((d) => d.filter((x) => x.answered === 200).length === 2);
    expect(receiver.deliveries.map((d) => [d.body.id, d.answered])).toEqual([
      [first, 500],
      [first, 302],
      [first, 200],
      [second, 200],
    ]);
    expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
    // The receiver answers before the worker commits the attempt: wait for the cursor to pass the second event.
    while (
      (
        await db.sql`select 1 from event_subscriptions where id = ${subscriptionId} and cursor = ${second}::bigint`
      ).length === 0
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Each attempt is one delivery with its own id; the event id stays.
    expect(new Set(receiver.deliveries.map((d) => d.headers["x-svc-delivery"])).size).toBe(4);
    const log = await db.sql<
      { event_id: string; status_code: number | null; delivered: boolean; error: string | null }[]
    >`
      select event_id::text as event_id, status_code, delivered, error from event_deliveries
      where subscription_id = ${subscriptionId} order by id`;
    expect(log.map((row) => [row.event_id, row.status_code, row.delivered])).toEqual([
      [first, 500, false],
      [first, 302, false],
      [first, 200, true],
      [second, 200, true],
    ]);
    expect(log[0]!.error).toMatch(/HTTP 500/);
    expect(log[1]!.error).toMatch(/HTTP 302/);
    const [state] = await db.sql`
      select cursor::text as cursor, failures, retry_at from event_subscriptions where id = ${subscriptionId}`;
    expect(state).toEqual({ cursor: second, failures: 0, retry_at: null });
  }, 60_000);

  it("delivers to a subscription that names its host (localhost here) rather than an IP literal", async () => {
    // Node 24 resolves for a connection with `all: true` (autoSelectFamily): the pinned lookup
    // answered one address and every delivery to a name failed with "Invalid IP address: undefined".
    const receiver = new WebhookReceiver();
    receivers.push(receiver);
    const url = (await receiver.start()).replace("127.0.0.1", "localhost");
    expect(new URL(url).hostname).toBe("localhost");
    const agent = await connectAgent(app.url, users["eve-wh"]!.token);
    agents.push(agent);
    const { secret } = await agent.method("events/subscribe", { delivery: { type: "webhook", url } });
    receiver.secret = secret;
    const written = await personalEvent(users["eve-wh"]!.id, 7);
    await receiver.until((d) => d.length >= 1);
    expect(receiver.deliveries.map((d) => d.body.id)).toEqual([written]);
    expect(receiver.deliveries[0]).toMatchObject({ verified: true, answered: 200 });
  }, 60_000);

  it("delivers an event no writer woke anyone for, and the minute sweep hands over a subscription left behind", async () => {
    const dan = users["dan-wh"]!.id;
    const { receiver, subscriptionId } = await subscribed("dan-wh");
    // A bare insert, as any writer's: the worker's delivery finds it by looking at the log.
    await db.sql`
      insert into pending_events (kind, occurred_at, audience_user_id, data)
      values (${EventKind.runFinished}, ${new Date()}, ${dan}, ${db.sql.json({ n: 77 })})`;
    await receiver.until((d) => d.length >= 1);
    expect(receiver.deliveries.map((d) => d.body.data)).toEqual([{ n: 77 }]);
    while (
      (await db.sql`select 1 from event_subscriptions where id = ${subscriptionId} and cursor > 0`).length ===
      0
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Left behind with no new id to look at, as by a process killed holding it: only the sweep finds it.
    await db.sql`update event_subscriptions set cursor = cursor - 1 where id = ${subscriptionId}`;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(receiver.deliveries).toHaveLength(1);
    expect(await wakeLaggingSubscriptions(services)).toBeGreaterThanOrEqual(1);
    await receiver.until((d) => d.length >= 2);
    // At least once: the same event again, its id unchanged.
    expect(receiver.deliveries[1]!.body.id).toBe(receiver.deliveries[0]!.body.id);
    // Once delivered, nothing lags: the next sweep wakes nobody.
    while ((await wakeLaggingSubscriptions(services)) > 0)
      await new Promise((resolve) => setTimeout(resolve, 50));
  }, 60_000);

  it("delivers many subscriptions' events side by side, each subscription's once and in id order", async () => {
    const eve = users["eve-wh"]!.id;
    const dan = users["dan-wh"]!.id;
    const subscriptions = [
      await subscribed("eve-wh"),
      await subscribed("eve-wh"),
      await subscribed("dan-wh"),
    ];
    // More than one batch (20) each, from writers committing at once.
    await Promise.all(
      Array.from({ length: 90 }, (_, n) =>
        db.sql.begin((tx) =>
          appendEvent(tx, {
            kind: EventKind.runFinished,
            occurredAt: new Date(),
            audienceUserId: n % 3 === 2 ? dan : eve,
            data: { n: 200 + n },
          }),
        ),
      ),
    );
    for (const [i, { receiver }] of subscriptions.entries()) {
      const expected = i < 2 ? 60 : 30;
      await receiver.until((d) => d.length >= expected);
      const ids = receiver.deliveries.map((d) => BigInt(d.body.id));
      expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
      expect(new Set(ids).size).toBe(expected);
      expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
    }
    // Nothing goes through graphile-worker's queue: no job per subscription or event.
    const queued = await db.sql`
      select 1 from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'deliver_events'`;
    expect(queued).toHaveLength(0);
  }, 60_000);

  it("resumes after the worker was down: every event once, in order", async () => {
    const dan = users["dan-wh"]!.id;
    const { receiver } = await subscribed("dan-wh");
    await worker.stop();
    const written: string[] = [];
    for (let n = 0; n < 12; n++) written.push(await personalEvent(dan, 100 + n));
    worker = await startWorker(services, { pollInterval: 100 });
    await receiver.until((d) => d.length >= written.length);
    expect(receiver.deliveries.map((d) => d.body.id)).toEqual(written);
    expect(receiver.deliveries.every((d) => d.verified && d.answered === 200)).toBe(true);
  }, 60_000);

  it("delivers nothing to an ended subscription, nor another user's events, nor kinds it did not ask for", async () => {
    const eve = users["eve-wh"]!.id;
    const dan = users["dan-wh"]!.id;
    const ended = await subscribed("eve-wh");
    const onlyCriteria = await subscribed("eve-wh", ["criteria.changed"]);
    const live = await subscribed("eve-wh");
    await ended.agent.method("events/unsubscribe", { subscription_id: ended.subscriptionId });
    await personalEvent(dan, 10);
    const mine = await personalEvent(eve, 11);
    await live.receiver.until((d) => d.length === 1);
    expect(live.receiver.deliveries[0]!.body).toMatchObject({ id: mine, data: { n: 11 } });
    // A little longer than the live one took: a wrong delivery to the others would have gone out by then.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ended.receiver.deliveries).toEqual([]);
    expect(onlyCriteria.receiver.deliveries).toEqual([]);
  }, 60_000);

  it("events/subscriptions lists the caller's subscriptions with their delivery state, events/deliveries the delivery log; nobody else's", async () => {
    const dan = users["dan-wh"]!.id;
    const { receiver, agent, subscriptionId } = await subscribed("dan-wh", ["verification.run_finished"]);
    receiver.statuses = [500];
    const event = await personalEvent(dan, 1);
    await receiver.until((d) => d.some((x) => x.answered === 200));
    while (
      (
        await db.sql`select 1 from event_subscriptions where id = ${subscriptionId} and cursor = ${event}::bigint`
      ).length === 0
    )
      await new Promise((resolve) => setTimeout(resolve, 50));

    const { subscriptions } = await agent.method("events/subscriptions");
    expect(
      subscriptions.find((s: { subscription_id: string }) => s.subscription_id === subscriptionId),
    ).toEqual({
      subscription_id: subscriptionId,
      kinds: ["verification.run_finished"],
      delivery: { type: "webhook", url: expect.any(String) },
      created_at: expect.any(String),
      ended_at: null,
      state: {
        cursor: event,
        failures: 0,
        retry_at: null,
        last_attempt: {
          event_id: event,
          attempted_at: expect.any(String),
          status_code: 200,
          delivered: true,
          error: null,
        },
        stream_open: false,
      },
    });
    const newest = await agent.method("events/deliveries", { subscription_id: subscriptionId, limit: 1 });
    expect(newest.deliveries).toMatchObject([{ event_id: event, status_code: 200, delivered: true }]);
    const older = await agent.method("events/deliveries", {
      subscription_id: subscriptionId,
      cursor: newest.next_cursor,
    });
    expect(older).toMatchObject({
      deliveries: [
        { event_id: event, status_code: 500, delivered: false, error: expect.stringContaining("500") },
      ],
      next_cursor: null,
    });

    // Ended subscriptions are listed on request only; another user sees none of them.
    await agent.method("events/unsubscribe", { subscription_id: subscriptionId });
    const live = await agent.method("events/subscriptions");
    expect(live.subscriptions.map((s: { subscription_id: string }) => s.subscription_id)).not.toContain(
      subscriptionId,
    );
    const all = await agent.method("events/subscriptions", { include_ended: true });
    expect(all.subscriptions.map((s: { subscription_id: string }) => s.subscription_id)).toContain(
      subscriptionId,
    );
    const eve = await connectAgent(app.url, users["eve-wh"]!.token);
    agents.push(eve);
    const theirs = await eve.method("events/subscriptions", { include_ended: true });
    expect(theirs.subscriptions.map((s: { subscription_id: string }) => s.subscription_id)).not.toContain(
      subscriptionId,
    );
    expect(await eve.refusal("events/deliveries", { subscription_id: subscriptionId })).toMatchObject({
      error: { code: "not_found" },
    });
    expect(
      await eve.refusal("events/deliveries", { subscription_id: subscriptionId, limit: 0 }),
    ).toMatchObject({
      error: { code: "invalid_input", field: "limit" },
    });
    expect(await eve.refusal("events/subscriptions", { include_ended: "yes" })).toMatchObject({
      error: { code: "invalid_input", field: "include_ended" },
    });
  }, 60_000);
});
