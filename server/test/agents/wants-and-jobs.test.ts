import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { type AgentClient, connectAgent } from "../events/support/agent-client.ts";
import { fixtureNode, fixtureProtocol, seedReview } from "../reviews/surface/support/review-fixture.ts";
import {
  contractDocument,
  type SeededUser,
  seedContract,
  seedImplementation,
  seedProblem,
  seedUser,
} from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

const T0 = new Date("2026-06-01T12:00:00Z");

/** want_solved and withdraw_want, the solve jobs they offer, leases and usage over MCP. */
describeWithDatabase("wants and solve jobs", () => {
  const db = useTestDatabase();
  let now = T0;
  let services: Services;
  let app: RunningApp;
  const users: Record<string, SeededUser> = {};
  const agents: AgentClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => now });
    app = await startApp(services);
    for (const handle of ["fay-wj", "gus-wj"])
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read", "contribute"] });
  }, 60_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await app?.close();
  });

  async function agentOf(handle: string) {
    const agent = await connectAgent(app.url, users[handle]!.token);
    agents.push(agent);
    return agent;
  }

  it("offers a wanted problem as a solve job until the want is withdrawn; leases renew; usage needs a lease", async () => {
    const problem = await seedProblem(services, {
      owner: users["gus-wj"]!.id,
      slug: "wanted",
      visibility: "listed",
    });
    const fay = await agentOf("fay-wj");
    const wanted = await fay.tool("want_solved", { problem: "wanted", note_md: "Try the Newton iteration." });
    expect(wanted).toMatchObject({
      isError: false,
      want: { problem_id: problem.problemId, note_md: "Try the Newton iteration.", withdrawn_at: null },
    });
    expect((await fay.tool("want_solved", { problem: problem.problemId })).want.want_id).toBe(
      wanted.want.want_id,
    );

    const jobId = `solve:${problem.problemId}`;
    const listed = await fay.tool("list_agent_jobs", { kinds: ["solve"] });
    expect(listed.jobs).toEqual([
      {
        job_id: jobId,
        kind: "solve",
        title: "Solve: Problem wanted",
        problem_id: problem.problemId,
        deadline_at: null,
        lease: null,
      },
    ]);
    expect(
      await fay.tool("report_agent_usage", {
        job_id: jobId,
        input_tokens: 1,
        output_tokens: 1,
        cost_usd: 0,
        duration_ms: 1,
      }),
    ).toMatchObject({ isError: true, error: { code: "not_found", job_id: jobId } });

    const lease = await fay.tool("accept_agent_job", { job_id: jobId });
    expect(lease).toMatchObject({
      lease: { job_id: jobId, kind: "solve", expires_at: new Date(T0.getTime() + 3600_000).toISOString() },
    });
    expect(lease.next_steps[0]).toContain("start_attempt");
    now = new Date(T0.getTime() + 10 * 60_000);
    const renewed = await fay.tool("accept_agent_job", { job_id: jobId, lease_minutes: 5 });
    expect(renewed.lease).toMatchObject({
      lease_id: lease.lease.lease_id,
      expires_at: new Date(now.getTime() + 5 * 60_000).toISOString(),
    });

    // Another user does not see fay's want, and may not withdraw it.
    const gus = await agentOf("gus-wj");
    expect((await gus.tool("list_agent_jobs", {})).jobs).toEqual([]);
    expect(await gus.tool("withdraw_want", { want_id: wanted.want.want_id })).toMatchObject({
      isError: true,
      error: { code: "not_found" },
    });

    const withdrawn = await fay.tool("withdraw_want", { want_id: wanted.want.want_id });
    expect(withdrawn.want.withdrawn_at).toBe(now.toISOString());
    expect(await fay.tool("withdraw_want", { want_id: wanted.want.want_id })).toMatchObject({
      isError: true,
      error: { code: "want_withdrawn" },
    });
    expect((await fay.tool("list_agent_jobs", {})).jobs).toEqual([]);
    expect(await fay.tool("accept_agent_job", { job_id: jobId })).toMatchObject({
      isError: true,
      error: { code: "job_unavailable", job_id: jobId },
    });
    // Usage of the job leased before is still recorded.
    expect(
      (
        await fay.tool("report_agent_usage", {
          job_id: jobId,
          input_tokens: 5,
          output_tokens: 5,
          cost_usd: 0.01,
          duration_ms: 10,
        })
      ).isError,
    ).toBe(false);
  });

  it("offers a solve job only while every sandbox stage has a non-yanked, conformance-passed implementation (spec 3)", async () => {
    const owner = users["gus-wj"]!;
    const contractId = await seedContract(db.sql, owner.id, {
      ...contractDocument(),
      title: "Dispatch rule",
    });
    const problem = await seedProblem(services, {
      owner: owner.id,
      slug: "dispatch-gated",
      visibility: "listed",
      revision: { statement: "Gated.", verifierContractId: contractId },
    });
    const fay = await agentOf("fay-wj");
    const want = await fay.tool("want_solved", { problem: "dispatch-gated" });
    const offered = async () =>
      ((await fay.tool("list_agent_jobs", { kinds: ["solve"] })).jobs as Array<{ problem_id: string }>).some(
        (job) => job.problem_id === problem.problemId,
      );
    // No implementation at all, then one still pending conformance, then one that failed it.
    expect(await offered()).toBe(false);
    await seedImplementation(db.sql, { contractId, stageKey: "check", author: owner.id, status: "pending" });
    expect(await offered()).toBe(false);
    await seedImplementation(db.sql, { contractId, stageKey: "check", author: owner.id, status: "failed" });
    expect(await offered()).toBe(false);
    // A passed one that is yanked does not count either.
    await seedImplementation(db.sql, {
      contractId,
      stageKey: "check",
      author: owner.id,
      yanked: true,
    });
    expect(await offered()).toBe(false);
    expect(await fay.tool("accept_agent_job", { job_id: `solve:${problem.problemId}` })).toMatchObject({
      isError: true,
    });
    await seedImplementation(db.sql, { contractId, stageKey: "check", author: owner.id });
    expect(await offered()).toBe(true);
    expect(await fay.tool("withdraw_want", { want_id: want.want.want_id })).toMatchObject({ isError: false });
  });

  it("offers an ended Attempt whose review rejected it as a continuation job, until it is continued", async () => {
    const review = await seedReview(services, {
      owner: users["gus-wj"]!.id,
      submitter: users["fay-wj"]!.id,
      slug: "to-continue",
      protocol: fixtureProtocol([fixtureNode("readers", { count: 1 })]),
      now: T0,
    });
    const [{ attempt_id: attemptId }] = (await db.sql`
      select attempt_id from submissions where id = ${review.submissionId}`) as unknown as [
      { attempt_id: string },
    ];
    const fay = await agentOf("fay-wj");
    const continuations = async (agent: AgentClient) =>
      (await agent.tool("list_agent_jobs", { kinds: ["continuation"] })).jobs;
    // Still active, and the review still open: nothing to continue.
    expect(await continuations(fay)).toEqual([]);
    await db.sql`update attempts set status = 'ended', ended_at = ${T0}, outcome = 'partial' where id = ${attemptId}`;
    expect(await continuations(fay)).toEqual([]);
    await db.sql`
      update review_processes set status = 'finished', finished_at = ${T0}, end_reason = 'completed', outcome = 'reject'
      where id = ${review.processId}`;

    const jobId = `continuation:${attemptId}`;
    expect(await continuations(fay)).toEqual([
      {
        job_id: jobId,
        kind: "continuation",
        title: "Continue after review: Problem to-continue",
        problem_id: review.problemId,
        attempt_id: attemptId,
        deadline_at: null,
        lease: null,
      },
    ]);
    // Nobody else is offered someone else's Attempt.
    const gus = await agentOf("gus-wj");
    expect(await continuations(gus)).toEqual([]);
    expect(await gus.tool("accept_agent_job", { job_id: jobId })).toMatchObject({
      isError: true,
      error: { code: "job_unavailable", job_id: jobId },
    });

    const accepted = await fay.tool("accept_agent_job", { job_id: jobId });
    expect(accepted).toMatchObject({ lease: { job_id: jobId, kind: "continuation" } });
    expect(accepted.next_steps[0]).toContain(
      `start_attempt {"problem": "${review.problemId}", "continues_attempt_id": "${attemptId}"}`,
    );
    expect((await continuations(fay))[0].lease).toMatchObject({ lease_id: accepted.lease.lease_id });

    // The call next_steps names continues it; then the job is gone.
    const started = await fay.tool("start_attempt", {
      problem: review.problemId,
      continues_attempt_id: attemptId,
    });
    expect(started).toMatchObject({ isError: false, continues: { attempt_id: attemptId } });
    expect(await continuations(fay)).toEqual([]);
    expect(await fay.tool("accept_agent_job", { job_id: jobId })).toMatchObject({
      isError: true,
      error: { code: "job_unavailable", job_id: jobId },
    });
  });

  it("refuses a private problem of someone else, a malformed job id and a reset in the past, naming the field", async () => {
    await seedProblem(services, { owner: users["gus-wj"]!.id, slug: "gus-private" });
    const fay = await agentOf("fay-wj");
    expect(await fay.tool("want_solved", { problem: "gus-private" })).toMatchObject({
      isError: true,
      error: { code: "not_found" },
    });
    expect(await fay.tool("accept_agent_job", { job_id: "mine-please" })).toMatchObject({
      isError: true,
      error: { code: "invalid_input", field: "job_id" },
    });
    const past = await fay.tool("set_usage_reset", { resets_at: "2020-01-01T00:00:00Z" });
    expect(past).toMatchObject({ isError: true, error: { code: "invalid_input", field: "resets_at" } });
    expect(past.error.message).toMatch(/later than now/);
    expect(await fay.tool("set_usage_reset", { resets_at: "tomorrow" })).toMatchObject({
      isError: true,
      error: { code: "invalid_input" },
    });
  });
});
