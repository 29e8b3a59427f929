import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import { advanceReviewProcess } from "../../src/reviews/advance-review-process.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { type AgentClient, connectAgent } from "../events/support/agent-client.ts";
import { WebhookReceiver } from "../events/support/webhook-receiver.ts";
import { fixtureNode, fixtureProtocol, seedReview } from "../reviews/surface/support/review-fixture.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

const T0 = new Date("2026-05-04T09:00:00Z");
const MINUTE = 60_000;

/**
 * A connected agent end to end, as docs/agents.md describes it: subscribed by webhook (a real
 * local receiver verifying every signature), woken by the worker when a seat it may take opens,
 * it accepts the job, claims the seat, submits its review and reports usage; past its budget it
 * is offered nothing until the reset.
 */
describeWithDatabase("a connected agent woken by webhook", () => {
  const db = useTestDatabase();
  let now = T0;
  let services: Services;
  let app: RunningApp;
  let worker: Runner;
  const receiver = new WebhookReceiver();
  const users: Record<string, SeededUser> = {};
  const agents: AgentClient[] = [];

  beforeAll(async () => {
    services = { ...testServices(db.sql, { clock: () => now }), allowLoopbackWebhooks: true };
    app = await startApp(services);
    worker = await startWorker(services, { pollInterval: 100 });
    for (const handle of ["owner-ca", "submitter-ca", "carol-ca"])
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read", "contribute"] });
  }, 60_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await worker?.stop();
    await app?.close();
    await receiver.stop();
  });

  async function agentOf(handle: string) {
    const agent = await connectAgent(app.url, users[handle]!.token);
    agents.push(agent);
    return agent;
  }

  /** A review of the submitter's work whose one human seat opens through the engine. */
  async function openSeat(slug: string) {
    const review = await seedReview(services, {
      owner: users["owner-ca"]!.id,
      submitter: users["submitter-ca"]!.id,
      slug,
      // A protocol of its own per review: protocols are content-addressed per publisher.
      protocol: fixtureProtocol([fixtureNode("readers", { count: 1, title: `Readers of ${slug}` })]),
      now,
    });
    await advanceReviewProcess(services, review.processId);
    return review;
  }

  it("is woken, accepts, claims, submits and reports usage; past its budget nothing is offered until the reset", async () => {
    const url = await receiver.start();
    const carol = await agentOf("carol-ca");
    const subscribed = await carol.method("events/subscribe", { delivery: { type: "webhook", url } });
    expect(subscribed.subscription).toMatchObject({
      delivery: { type: "webhook", url },
      kinds: null,
      ended_at: null,
    });
    receiver.secret = subscribed.secret;

    // 1. A seat opens: the worker delivers review.seat_opened, signed, to the agent's receiver.
    const review = await openSeat("essay-agent");
    await receiver.until((d) => d.some((x) => x.body.data?.review_process_id === review.processId));
    const woken = receiver.deliveries.find((x) => x.body.data?.review_process_id === review.processId)!;
    expect(woken.verified).toBe(true);
    expect(woken.headers["x-svc-event"]).toBe("review.seat_opened");
    expect(woken.headers["x-svc-event-id"]).toBe(woken.body.id);
    expect(woken.body).toMatchObject({
      kind: "review.seat_opened",
      subscription_id: subscribed.subscription.subscription_id,
      data: {
        review_process_id: review.processId,
        node_id: "readers",
        problem_id: review.problemId,
        seats: 1,
      },
    });
    // Never the submitter's identity.
    expect(woken.raw).not.toContain(users["submitter-ca"]!.id);

    // 2. The job is offered; the agent accepts it and takes a lease.
    const jobId = `review_seat:${review.processId}:readers`;
    const listed = await carol.tool("list_agent_jobs", {});
    expect(listed.jobs).toEqual([
      expect.objectContaining({
        job_id: jobId,
        kind: "review_seat",
        problem_id: review.problemId,
        lease: null,
      }),
    ]);
    expect(listed.budget).toMatchObject({ exhausted: false, token_budget: null });
    const accepted = await carol.tool("accept_agent_job", { job_id: jobId, lease_minutes: 30 });
    expect(accepted).toMatchObject({
      isError: false,
      lease: {
        job_id: jobId,
        kind: "review_seat",
        expires_at: new Date(T0.getTime() + 30 * MINUTE).toISOString(),
      },
    });
    expect(accepted.next_steps[0]).toContain("claim_review");
    const leased = await carol.tool("list_agent_jobs", {});
    expect(leased.jobs[0].lease).toMatchObject({ lease_id: accepted.lease.lease_id });

    // 3. It claims the seat and submits, declaring its assistance.
    const claim = await carol.tool("claim_review", {
      review_process_id: review.processId,
      node_id: "readers",
    });
    expect(claim).toMatchObject({ isError: false, assignment: { status: "claimed" } });
    const submitted = await carol.tool("submit_review_response", {
      assignment_id: claim.assignment.id,
      response: { verdict: "accept" },
      rationale_md: "The argument holds.",
      citations: [],
      assistance: { provider: "anthropic", model: "claude-test" },
    });
    expect(submitted).toMatchObject({ isError: false, assignment: { status: "submitted" } });
    expect((await carol.tool("list_agent_jobs", {})).jobs).toEqual([]);

    // 4. It reports what the job cost.
    const usage = await carol.tool("report_agent_usage", {
      job_id: jobId,
      input_tokens: 800,
      output_tokens: 200,
      cost_usd: 0.25,
      duration_ms: 42_000,
      model: "claude-test",
    });
    expect(usage).toMatchObject({
      isError: false,
      usage: { job_id: jobId, lease_id: accepted.lease.lease_id, input_tokens: 800 },
      budget: { used: { tokens: 1000, cost_usd: 0.25, duration_ms: 42_000 }, exhausted: false },
    });

    // 5. A minute later, a budget of 1000 tokens until the hour and every day after; a second job uses it up.
    now = new Date(T0.getTime() + MINUTE);
    const resetsAt = new Date(T0.getTime() + 60 * MINUTE);
    const budget = await carol.tool("set_usage_reset", {
      resets_at: resetsAt.toISOString(),
      period_hours: 24,
      token_budget: 1000,
    });
    expect(budget.budget).toMatchObject({
      token_budget: 1000,
      window_started_at: now.toISOString(),
      resets_at: resetsAt.toISOString(),
      used: { tokens: 0 },
      exhausted: false,
    });
    const second = await openSeat("essay-agent-2");
    await receiver.until((d) => d.some((x) => x.body.data?.review_process_id === second.processId));
    const secondJob = `review_seat:${second.processId}:readers`;
    expect((await carol.tool("accept_agent_job", { job_id: secondJob })).isError).toBe(false);
    const spent = await carol.tool("report_agent_usage", {
      job_id: secondJob,
      input_tokens: 900,
      output_tokens: 300,
      cost_usd: 0.3,
      duration_ms: 1000,
    });
    expect(spent.budget).toMatchObject({ used: { tokens: 1200 }, exhausted: true });

    // 6. Past the budget: a third seat still wakes the agent, but no job is offered or accepted.
    const third = await openSeat("essay-agent-3");
    await receiver.until((d) => d.some((x) => x.body.data?.review_process_id === third.processId));
    const thirdJob = `review_seat:${third.processId}:readers`;
    const refused = await carol.tool("list_agent_jobs", {});
    expect(refused).toMatchObject({
      jobs: [],
      budget: { exhausted: true, resets_at: resetsAt.toISOString() },
    });
    expect(await carol.tool("accept_agent_job", { job_id: thirdJob })).toMatchObject({
      isError: true,
      error: { code: "budget_exhausted", resets_at: resetsAt.toISOString() },
    });

    // 7. After the reset the window is fresh and the jobs are offered again.
    now = new Date(resetsAt.getTime() + MINUTE);
    const renewed = await carol.tool("list_agent_jobs", {});
    expect(renewed.budget).toMatchObject({
      exhausted: false,
      used: { tokens: 0 },
      window_started_at: resetsAt.toISOString(),
      resets_at: new Date(resetsAt.getTime() + 24 * 60 * MINUTE).toISOString(),
    });
    expect(renewed.jobs.map((j: { job_id: string }) => j.job_id).sort()).toEqual(
      [secondJob, thirdJob].sort(),
    );

    // Every delivery verified, in id order, each event once.
    expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
    const ids = receiver.deliveries.map((d) => BigInt(d.body.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
  }, 60_000);

  it("shows a seat event only to those who may claim the seat: never to its submitter", async () => {
    const submitter = await agentOf("submitter-ca");
    const owner = await agentOf("owner-ca");
    const review = await openSeat("essay-visibility");
    const seen = async (agent: AgentClient) => {
      const events: Array<{ data: { review_process_id?: string } }> = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await agent.method("events/list", { ...(cursor && { cursor }), limit: 200 });
        events.push(...page.events);
        cursor = page.next_cursor;
        if (!page.has_more) return events.filter((e) => e.data.review_process_id === review.processId);
      }
    };
    expect(await seen(submitter)).toEqual([]);
    expect(await seen(owner)).toHaveLength(1);
  });

  it("refuses unusable webhook addresses and stream delivery, and ends only the caller's own subscription", async () => {
    const carol = await agentOf("carol-ca");
    for (const url of [
      "http://10.1.2.3/hook",
      "https://169.254.169.254/latest",
      "http://[::ffff:192.168.0.1]/",
      "ftp://example.com/",
    ]) {
      expect(
        await carol.refusal("events/subscribe", { delivery: { type: "webhook", url } }),
        url,
      ).toMatchObject({
        code: -32602,
        error: { code: "invalid_input", field: "delivery.url" },
      });
    }
    expect(await carol.refusal("events/subscribe", { delivery: { type: "carrier-pigeon" } })).toMatchObject({
      error: { code: "invalid_input", field: "delivery.type" },
    });
    expect(await carol.refusal("events/subscribe", {})).toMatchObject({
      error: { code: "invalid_input", field: "delivery" },
    });
    expect(await carol.refusal("events/unsubscribe", { subscription_id: "esb_!" })).toMatchObject({
      error: { code: "invalid_input", field: "subscription_id" },
    });
    expect(await carol.refusal("events/subscribe", { delivery: { type: "pigeon" } })).toMatchObject({
      error: { code: "invalid_input" },
    });
    const { subscription } = await carol.method("events/subscribe", {
      kinds: ["criteria.changed"],
      delivery: { type: "webhook", url: "https://hooks.example.com/svc" },
    });
    const owner = await agentOf("owner-ca");
    expect(
      await owner.refusal("events/unsubscribe", { subscription_id: subscription.subscription_id }),
    ).toMatchObject({
      error: { code: "not_found" },
    });
    const ended = await carol.method("events/unsubscribe", { subscription_id: subscription.subscription_id });
    expect(ended.subscription).toMatchObject({
      subscription_id: subscription.subscription_id,
      kinds: ["criteria.changed"],
    });
    expect(ended.subscription.ended_at).toBe(now.toISOString());
    // Ending it again returns it as it ended.
    expect(
      (await carol.method("events/unsubscribe", { subscription_id: subscription.subscription_id }))
        .subscription,
    ).toEqual(ended.subscription);
  });
});
