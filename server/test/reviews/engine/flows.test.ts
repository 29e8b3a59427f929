import { afterAll, beforeAll, expect, it } from "vitest";
import { advanceReviewProcess } from "../../../src/reviews/advance-review-process.ts";
import { claimReview } from "../../../src/reviews/claim-review.ts";
import { readAssignmentRows, readNodeRows, readProcessRow } from "../../../src/reviews/read-process-rows.ts";
import type { ReviewProcessRow } from "../../../src/reviews/review-records.ts";
import { MAX_AGENT_ATTEMPTS, runAgentSeat } from "../../../src/reviews/run-agent-seat.ts";
import { submitReviewResponse } from "../../../src/reviews/submit-review-response.ts";
import {
  type FakeMessagesApi,
  reply,
  startFakeMessagesApi,
  testHostedReviewers,
} from "../../support/fake-messages-api.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { agentNode, coalesce, humanNode, kOfN, protocol, threshold, when } from "./support/protocols.ts";
import { type ReviewWorld, reviewers, reviewWorld, startOn, verdict } from "./support/review-harness.ts";

describeWithDatabase("review processes end to end", () => {
  const db = useTestDatabase();
  let world: ReviewWorld;
  let api: FakeMessagesApi;

  beforeAll(async () => {
    world = await reviewWorld(db.sql);
    api = await startFakeMessagesApi();
    world.services.hostedReviewers = testHostedReviewers(api.baseURL);
  });
  afterAll(async () => {
    await api.close();
  });

  async function review(
    process: ReviewProcessRow,
    nodeId: string,
    responses: Array<ReturnType<typeof verdict>>,
  ) {
    for (const response of responses) {
      const [user] = await reviewers(db.sql, 1);
      const held = await claimReview(world.services, user!.user.id, {
        review_process_id: process.id,
        node_id: nodeId,
      });
      await submitReviewResponse(world.services, user!.user.id, { assignment_id: held.id, ...response });
    }
  }

  it("reduces a threshold over the mean and over the median of the scores", async () => {
    const scores = [0.2, 0.9, 1];
    for (const [aggregate, outcome] of [
      ["mean", "unresolved"],
      ["median", "accept"],
    ] as const) {
      const process = await startOn(
        world,
        protocol(
          [humanNode("graders", { count: 3 }), threshold("decision", "graders", aggregate, 0.8, 0.5)],
          "decision",
        ),
      );
      await advanceReviewProcess(world.services, process.id);
      await review(
        process,
        "graders",
        scores.map((score) => verdict("accept", { score })),
      );
      expect(await readProcessRow(db.sql, process.id)).toMatchObject({ status: "finished", outcome });
      const decision = (await readNodeRows(db.sql, process.id)).find((n) => n.node_id === "decision")!;
      expect(decision.reduction).toMatchObject({ op: "threshold", outcome });
    }
  });

  const escalating = protocol(
    [
      humanNode("first", { count: 2 }),
      kOfN("first_decision", "first", 2, 2),
      humanNode("escalation", {
        count: 1,
        when: when("first_decision", "unresolved"),
        prior_nodes: ["first", "first_decision"],
      }),
      kOfN("escalation_decision", "escalation", 1, 1),
      coalesce("decision", ["first_decision", "escalation_decision"]),
    ],
    "decision",
  );

  it("runs the escalation node only when the first reviewers leave the matter unresolved", async () => {
    // 1. Split reviewers: the escalation opens and decides.
    const split = await startOn(world, escalating);
    await advanceReviewProcess(world.services, split.id);
    await review(split, "first", [verdict("accept"), verdict("reject")]);
    const nodes = await readNodeRows(db.sql, split.id);
    expect(nodes.find((n) => n.node_id === "escalation")!.status).toBe("open");
    await review(split, "escalation", [verdict("reject")]);
    expect(await readProcessRow(db.sql, split.id)).toMatchObject({ outcome: "reject" });
    // 2. Agreeing reviewers: the escalation is skipped with its reason.
    const agreed = await startOn(world, escalating);
    await advanceReviewProcess(world.services, agreed.id);
    await review(agreed, "first", [verdict("accept"), verdict("accept")]);
    const skipped = (await readNodeRows(db.sql, agreed.id)).find((n) => n.node_id === "escalation")!;
    expect(skipped).toMatchObject({ status: "skipped" });
    expect(skipped.skip_reason).toContain("runs only on unresolved");
    expect(await readProcessRow(db.sql, agreed.id)).toMatchObject({ outcome: "accept" });
  });

  const humanAndAgent = protocol(
    [
      agentNode("agent", { count: 1 }),
      kOfN("agent_decision", "agent", 1, 1),
      humanNode("human", { count: 1 }),
      kOfN("human_decision", "human", 1, 1),
      coalesce("decision", ["human_decision", "agent_decision"]),
    ],
    "decision",
  );

  it("coalesces a human node and an agent node, the agent invoked through the real Anthropic client", async () => {
    const process = await startOn(world, humanAndAgent);
    await advanceReviewProcess(world.services, process.id);
    // 1. Opening the agent node issued its seat with the effective configuration.
    const [seat] = (await readAssignmentRows(db.sql, process.id)).filter((a) => a.reviewer_kind === "agent");
    expect(seat).toMatchObject({ status: "claimed", reviewer_user_id: null, hold_until: null });
    expect(seat!.agent).toMatchObject({ provider: "anthropic", model: "claude-test" });
    expect(Object.keys(seat!.agent!.config).sort()).toEqual(["effort", "max_tokens"]);
    // 2. The agent's first reply breaks the rubric; the retry names the problem; the second passes.
    api.reply(
      reply.toolUse({ response: { verdict: "perhaps" }, rationale_md: "unsure", citations: [] }),
      reply.toolUse({ response: { verdict: "accept" }, rationale_md: "The essay holds.", citations: [] }),
    );
    const before = api.requests.length;
    await runAgentSeat(world.services, seat!.id);
    const sent = api.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.raw).toContain("Every claim here is checked.");
    expect(sent[1]!.raw).toContain("/response/verdict");
    const stored = (await readAssignmentRows(db.sql, process.id)).find((a) => a.id === seat!.id)!;
    expect(stored).toMatchObject({ status: "submitted", agent_attempts: 1, response: { verdict: "accept" } });
    // 3. The human rejects; coalesce takes the human's resolved outcome first.
    await review(process, "human", [verdict("reject")]);
    expect(await readProcessRow(db.sql, process.id)).toMatchObject({ status: "finished", outcome: "reject" });
  });

  it("lapses an agent seat after its bounded retries; the seat stays open until the deadline", async () => {
    const agentOnly = protocol(
      [agentNode("agent", { count: 1 }), kOfN("decision", "agent", 1, 1)],
      "decision",
    );
    const process = await startOn(world, agentOnly);
    await advanceReviewProcess(world.services, process.id);
    const [seat] = await readAssignmentRows(db.sql, process.id);
    api.reply(reply.error(529), reply.text("no JSON here"), reply.error(500));
    await runAgentSeat(world.services, seat!.id);
    const lapsed = (await readAssignmentRows(db.sql, process.id))[0]!;
    expect(lapsed).toMatchObject({ status: "lapsed", agent_attempts: MAX_AGENT_ATTEMPTS });
    expect(lapsed.agent_last_error).toContain("the call failed");
    expect(await readProcessRow(db.sql, process.id)).toMatchObject({ status: "open" });
    world.clock.advanceMinutes(72 * 60);
    await advanceReviewProcess(world.services, process.id);
    expect(await readProcessRow(db.sql, process.id)).toMatchObject({ end_reason: "reviewers_unavailable" });
  });
});
