import { request as httpRequest } from "node:http";
import { EventKind } from "@svc/schemas";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import type { Services } from "../../src/core/services/services.ts";
import {
  EVENT_NOTIFICATION,
  MAX_OPEN_STREAMS_PER_USER,
  STREAM_BUFFER_BYTES,
} from "../../src/events/stream-events.ts";
import { MODERN_REVISION } from "../edges/mcp/support/json-rpc.ts";
import { type RunningApp, startApp, startMcpApp } from "../edges/mcp/support/start-app.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { type AgentClient, connectAgent } from "./support/agent-client.ts";
import { commitEvent } from "./support/commit-event.ts";

const AnyResult = z.looseObject({});
const EventNotification = z.looseObject({
  subscription_id: z.string(),
  event: z.looseObject({ id: z.string(), kind: z.string(), data: z.looseObject({}) }),
});

/** A stream as the test holds it: the notifications received so far and the request's end. */
interface OpenStream {
  received: Array<{ id: string; data: { n?: number } }>;
  result: Promise<Record<string, any>>;
  cancel(): void;
  /** Resolves once `count` events have arrived. */
  until(count: number): Promise<void>;
}

/**
 * Stream deliveries: events/stream held open by the real SDK client, its events received as MCP
 * notifications, resumed after a reconnect with nothing lost, ended (with the reason) by a
 * takeover, an unsubscribe, a revoked token and a closing server; its refusals.
 */
describeWithDatabase("events/stream", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  const users: Record<string, SeededUser> = {};
  const agents: AgentClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    for (const handle of ["ann-st", "bob-st", "cat-st", "dan-st", "eve-st"])
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read", "contribute"] });
  }, 60_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await app?.close();
  });

  async function agentOf(handle: string, url = app.url) {
    const agent = await connectAgent(url, users[handle]!.token);
    agents.push(agent);
    return agent;
  }

  async function personalEvent(userId: string, n: number): Promise<string> {
    return await commitEvent(db.sql, {
      kind: EventKind.runFinished,
      occurredAt: new Date(),
      audienceUserId: userId,
      data: { n },
    });
  }

  /** Opens events/stream on `agent` (a fresh client per stream), collecting its notifications. */
  function openStream(agent: AgentClient, params: Record<string, unknown>): OpenStream {
    const received: OpenStream["received"] = [];
    const waiters: Array<{ count: number; resolve: () => void }> = [];
    agent.client.setNotificationHandler(EVENT_NOTIFICATION, { params: EventNotification }, (note) => {
      received.push(note.event as OpenStream["received"][number]);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
    });
    const abort = new AbortController();
    const result = agent.client.request({ method: "events/stream", params } as never, AnyResult, {
      signal: abort.signal,
      timeout: 120_000,
    }) as Promise<Record<string, any>>;
    return {
      received,
      result,
      cancel: () => abort.abort(),
      until: (count) =>
        received.length >= count
          ? Promise.resolve()
          : new Promise((resolve) => waiters.push({ count, resolve })),
    };
  }

  async function streamSubscription(agent: AgentClient): Promise<string> {
    const { subscription, secret } = await agent.method("events/subscribe", { delivery: { type: "stream" } });
    expect(subscription.delivery).toEqual({ type: "stream" });
    expect(secret).toBeUndefined();
    return subscription.subscription_id;
  }

  /** Waits until the subscription is held by a stream that has polled (it is open). */
  async function opened(subscriptionId: string, holderBefore: string | null = null): Promise<void> {
    for (;;) {
      const [row] = await db.sql<{ stream_holder: string | null }[]>`
        select stream_holder from event_subscriptions where id = ${subscriptionId}`;
      if (row?.stream_holder && row.stream_holder !== holderBefore) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function holder(subscriptionId: string): Promise<string | null> {
    const [row] = await db.sql<{ stream_holder: string | null }[]>`
      select stream_holder from event_subscriptions where id = ${subscriptionId}`;
    return row?.stream_holder ?? null;
  }

  it("sends the events its user may see as notifications, in order; a reconnect with the last id resumes with nothing lost", async () => {
    const ann = users["ann-st"]!.id;
    const bob = users["bob-st"]!.id;
    const control = await agentOf("ann-st");
    const subscriptionId = await streamSubscription(control);
    const first = openStream(await agentOf("ann-st"), { subscription_id: subscriptionId });
    await opened(subscriptionId);
    const written: string[] = [];
    for (let n = 0; n < 5; n++) {
      written.push(await personalEvent(ann, n));
      await personalEvent(bob, n);
    }
    await first.until(5);
    expect(first.received.map((e) => e.id)).toEqual(written);
    const lastSeen = first.received.at(-1)!.id;

    // The agent drops its connection; events keep coming while it is away.
    first.cancel();
    await expect(first.result).rejects.toThrow();
    for (let n = 5; n < 12; n++) written.push(await personalEvent(ann, n));

    const before = await holder(subscriptionId);
    const second = openStream(await agentOf("ann-st"), { subscription_id: subscriptionId, cursor: lastSeen });
    await opened(subscriptionId, before);
    await second.until(7);
    written.push(await personalEvent(ann, 12));
    await second.until(8);
    expect(second.received.map((e) => e.id)).toEqual(written.slice(5));

    // Unsubscribing ends the stream at its next poll, with the cursor to resume from.
    await control.method("events/unsubscribe", { subscription_id: subscriptionId });
    expect(await second.result).toMatchObject({
      subscription_id: subscriptionId,
      ended: "unsubscribed",
      cursor: written.at(-1),
      delivered: 8,
    });
    // The listing shows the stream subscription with its cursor.
    const { subscriptions } = await control.method("events/subscriptions", { include_ended: true });
    expect(
      subscriptions.find((s: { subscription_id: string }) => s.subscription_id === subscriptionId),
    ).toMatchObject({ delivery: { type: "stream" }, state: { cursor: written.at(-1), stream_open: false } });
  }, 60_000);

  it("a second stream on a subscription takes it over; the first ends with `replaced`", async () => {
    const agent = await agentOf("bob-st");
    const subscriptionId = await streamSubscription(agent);
    const first = openStream(await agentOf("bob-st"), { subscription_id: subscriptionId });
    await opened(subscriptionId);
    const before = await holder(subscriptionId);
    const second = openStream(await agentOf("bob-st"), { subscription_id: subscriptionId });
    await opened(subscriptionId, before);
    expect(await first.result).toMatchObject({ ended: "replaced" });
    const id = await personalEvent(users["bob-st"]!.id, 1);
    await second.until(1);
    expect(second.received.map((e) => e.id)).toEqual([id]);
    second.cancel();
    await expect(second.result).rejects.toThrow();
  }, 60_000);

  it("a revoked token ends the stream at its next poll", async () => {
    const user = await seedUser(db.sql, "fay-st", { scopes: ["read", "contribute"] });
    const agent = await connectAgent(app.url, user.token);
    agents.push(agent);
    const subscriptionId = await streamSubscription(agent);
    const stream = openStream(agent, { subscription_id: subscriptionId });
    await opened(subscriptionId);
    await db.sql`update api_tokens set revoked_at = now() where user_id = ${user.id}`;
    expect(await stream.result).toMatchObject({ ended: "token_revoked" });
  }, 60_000);

  it("a closing server ends its streams with `server_closing` and the cursor to resume from", async () => {
    const own = await startMcpApp({ services, streamPollMs: 100 });
    const agent = await connectAgent(own.url, users["cat-st"]!.token);
    const subscriptionId = await streamSubscription(agent);
    const stream = openStream(agent, { subscription_id: subscriptionId });
    await opened(subscriptionId);
    const id = await personalEvent(users["cat-st"]!.id, 1);
    await stream.until(1);
    await own.close();
    expect(await stream.result).toMatchObject({ ended: "server_closing", cursor: id });
    await agent.close();
  }, 60_000);

  it("holds at most MAX_OPEN_STREAMS_PER_USER open streams per user; refuses webhooks', others' and unknown subscriptions", async () => {
    const agent = await agentOf("dan-st");
    const streams: OpenStream[] = [];
    const held: string[] = [];
    const holders: AgentClient[] = [];
    for (let i = 0; i < MAX_OPEN_STREAMS_PER_USER; i++) {
      const subscriptionId = await streamSubscription(agent);
      held.push(subscriptionId);
      holders.push(await agentOf("dan-st"));
      streams.push(openStream(holders.at(-1)!, { subscription_id: subscriptionId }));
      await opened(subscriptionId);
    }
    const extra = await streamSubscription(agent);
    expect(await agent.refusal("events/stream", { subscription_id: extra })).toMatchObject({
      code: -32602,
      error: { code: "conflict", limit: MAX_OPEN_STREAMS_PER_USER },
    });
    // A client that closes its connection ends its stream, which lets go of its subscription: the
    // sixth may open now. (A cancel alone cannot reach a stateless server: docs/agents.md.)
    for (const [index, stream] of streams.entries()) {
      await holders[index]!.close();
      await expect(stream.result).rejects.toThrow();
    }
    for (const id of held) while ((await holder(id)) !== null) await new Promise((r) => setTimeout(r, 50));
    const sixth = openStream(await agentOf("dan-st"), { subscription_id: extra });
    await opened(extra);
    sixth.cancel();
    await expect(sixth.result).rejects.toThrow();

    const { subscription: webhook } = await agent.method("events/subscribe", {
      delivery: { type: "webhook", url: "https://hooks.example.com/svc" },
    });
    expect(await agent.refusal("events/stream", { subscription_id: webhook.subscription_id })).toMatchObject({
      error: { code: "invalid_input", field: "subscription_id" },
    });
    const other = await agentOf("eve-st");
    expect(await other.refusal("events/stream", { subscription_id: extra })).toMatchObject({
      error: { code: "not_found" },
    });
    expect(await agent.refusal("events/stream", { subscription_id: "esb_nothing0000" })).toMatchObject({
      error: { code: "not_found" },
    });
    expect(await agent.refusal("events/stream", { subscription_id: "nope" })).toMatchObject({
      error: { code: "invalid_input", field: "subscription_id" },
    });
    expect(await agent.refusal("events/stream", { subscription_id: extra, cursor: "x" })).toMatchObject({
      error: { code: "invalid_input", field: "cursor" },
    });
    expect(await agent.refusal("events/stream", { subscription_id: extra, since: "1" })).toMatchObject({
      error: { code: "invalid_input" },
    });
  }, 60_000);

  it("cuts a reader that stops reading once its backlog passes STREAM_BUFFER_BYTES, instead of buffering without bound", async () => {
    const agent = await agentOf("eve-st");
    const subscriptionId = await streamSubscription(agent);
    // A client that sends events/stream and then reads nothing.
    const response = new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
      const url = new URL(`${app.url}/mcp`);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${users["eve-st"]!.token}`,
            "mcp-protocol-version": MODERN_REVISION,
            "mcp-method": "events/stream",
          },
        },
        (res) => {
          res.pause();
          resolve(res);
        },
      );
      req.on("error", reject);
      req.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "events/stream",
          params: {
            subscription_id: subscriptionId,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
              "io.modelcontextprotocol/clientInfo": { name: "svc-slow-reader", version: "1.0.0" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      );
    });
    await opened(subscriptionId);
    // Far more than the buffer and any socket buffers: 2 KiB events, 16 times the buffer.
    const count = Math.ceil((STREAM_BUFFER_BYTES * 16) / 2048);
    await db.sql`
      insert into events (kind, occurred_at, audience_user_id, data)
      select ${EventKind.runFinished}, now(), ${users["eve-st"]!.id}, jsonb_build_object('n', n, 'pad', repeat('x', 2048))
      from generate_series(1, ${count}) n`;
    // The answer's headers go out with its first notification.
    const res = await response;
    // The stream gives up on the reader: its hold is released.
    while ((await holder(subscriptionId)) !== null) await new Promise((resolve) => setTimeout(resolve, 100));
    res.resume();
    let text = "";
    res.setEncoding("utf8");
    for await (const chunk of res) text += chunk;
    const frames = text.split("\n\n").filter((frame) => frame.includes("data: "));
    const last = JSON.parse(frames.at(-1)!.slice(frames.at(-1)!.indexOf("data: ") + 6));
    expect(last.result).toMatchObject({ subscription_id: subscriptionId, ended: "slow_reader" });
    expect(last.result.delivered).toBeLessThan(count);
    // What was sent is what the cursor says: a reconnect resumes right after it.
    const [row] = await db.sql<{ cursor: string }[]>`
      select cursor::text as cursor from event_subscriptions where id = ${subscriptionId}`;
    expect(row!.cursor).toBe(last.result.cursor);
  }, 60_000);
});
