import { EventKind } from "@svc/schemas";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { appendEvent } from "../../src/events/append-event.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { type AgentClient, connectAgent } from "./support/agent-client.ts";
import { commitEvent } from "./support/commit-event.ts";

/** The event log and events/list over MCP: order, cursors, catching up, visibility, refusals. */
describeWithDatabase("the event log and events/list", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  const users: Record<string, SeededUser> = {};
  const agents: AgentClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    for (const handle of ["ann-ev", "bob-ev"])
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read"] });
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

  /** A personal event of `userId`, committed in its own transaction, as a change would write it. */
  async function personalEvent(userId: string, n: number): Promise<string> {
    return await commitEvent(db.sql, {
      kind: EventKind.runFinished,
      occurredAt: new Date(),
      audienceUserId: userId,
      data: { n },
    });
  }

  async function readAll(agent: AgentClient, cursor: string | undefined, limit: number) {
    const seen: Array<{ id: string; data: { n: number } }> = [];
    let position = cursor;
    for (;;) {
      const page = await agent.method("events/list", {
        ...(position !== undefined && { cursor: position }),
        limit,
      });
      seen.push(...page.events);
      position = page.next_cursor;
      if (!page.has_more) return { seen, cursor: position };
    }
  }

  it("a subscriber that was down catches up from its last cursor: every event once, in order, none of another user's", async () => {
    const ann = users["ann-ev"]!.id;
    const bob = users["bob-ev"]!.id;
    const written: string[] = [];
    for (let n = 0; n < 25; n++) {
      written.push(await personalEvent(ann, n));
      if (n % 5 === 0) await personalEvent(bob, n);
    }
    const first = await agentOf("ann-ev");
    const page = await first.method("events/list", { limit: 10 });
    expect(page.events.map((e: { id: string }) => e.id)).toEqual(written.slice(0, 10));
    expect(page.has_more).toBe(true);
    const saved = page.next_cursor as string;
    await first.close();

    // The agent is down; the service restarts and events keep coming.
    await app.close();
    for (let n = 25; n < 40; n++) written.push(await personalEvent(ann, n));
    app = await startApp(services);

    const again = await agentOf("ann-ev");
    const { seen } = await readAll(again, saved, 7);
    const all = [...page.events, ...seen];
    expect(all.map((e) => e.id)).toEqual(written);
    expect(all.map((e) => e.data.n)).toEqual([...Array(40).keys()]);
    expect(
      all.every((e) => e.kind === "verification.run_finished" && typeof e.occurred_at === "string"),
    ).toBe(true);
    const ids = all.map((e) => BigInt(e.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);

    const bobs = await readAll(await agentOf("bob-ev"), undefined, 50);
    expect(bobs.seen.map((e) => e.data.n)).toEqual([0, 5, 10, 15, 20]);
  });

  it("writers do not wait on each other, and ids follow commit order: a reader never passes an event that commits later", async () => {
    const ann = users["ann-ev"]!.id;
    const agent = await agentOf("ann-ev");
    const { cursor } = await readAll(agent, undefined, 200);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let appended!: () => void;
    const slowAppended = new Promise<void>((resolve) => {
      appended = resolve;
    });
    const slow = db.sql.begin(async (tx) => {
      await appendEvent(tx, {
        kind: EventKind.runFinished,
        occurredAt: new Date(),
        audienceUserId: ann,
        data: { n: 100 },
      });
      appended();
      await gate;
    });
    // The second writer appends after the first and commits while the first is still open.
    await slowAppended;
    await personalEvent(ann, 101);
    const before = await readAll(agent, cursor, 50);
    expect(before.seen.map((e) => e.data.n)).toEqual([101]);
    release();
    await slow;
    const after = await readAll(agent, before.cursor, 50);
    expect(after.seen.map((e) => e.data.n)).toEqual([100]);
    expect(BigInt(after.seen[0]!.id) > BigInt(before.seen[0]!.id)).toBe(true);
  });

  it("filters by kind, and refuses a malformed cursor or kind naming the field", async () => {
    const agent = await agentOf("ann-ev");
    const none = await agent.method("events/list", { kinds: ["criteria.changed"], limit: 50 });
    expect(none.events).toEqual([]);
    expect(none.has_more).toBe(false);
    const bad = await agent.refusal("events/list", { cursor: "abc" });
    expect(bad).toMatchObject({ code: -32602, error: { code: "invalid_input", field: "cursor" } });
    expect(bad.error!.message).toMatch(/next_cursor/);
    expect(await agent.refusal("events/list", { kinds: ["no.such_kind"] })).toMatchObject({
      code: -32602,
      error: { code: "invalid_input", field: "kinds.0" },
    });
    expect(await agent.refusal("events/list", { limit: 0 })).toMatchObject({
      code: -32602,
      error: { code: "invalid_input", field: "limit" },
    });
    const unknown = await agent.refusal("events/list", { since: "1" });
    expect(unknown).toMatchObject({ error: { code: "invalid_input", field: "since" } });
    expect(unknown.error!.message).toMatch(/cursor, kinds, limit/);
  });

  it("declares the event methods in the server's capabilities", async () => {
    const agent = await agentOf("ann-ev");
    expect(agent.client.getServerCapabilities()?.experimental?.["svc/events"]).toMatchObject({
      methods: [
        "events/list",
        "events/subscribe",
        "events/unsubscribe",
        "events/stream",
        "events/subscriptions",
        "events/deliveries",
      ],
      deliveries: ["webhook", "stream"],
    });
  });

  it("refuses a subscription on a read-scoped token", async () => {
    const agent = await agentOf("ann-ev");
    expect(
      await agent.refusal("events/subscribe", {
        delivery: { type: "webhook", url: "https://example.com/hook" },
      }),
    ).toMatchObject({ code: -32602, error: { code: "forbidden" } });
  });
});
