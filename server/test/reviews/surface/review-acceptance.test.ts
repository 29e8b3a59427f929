import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { startWorker } from "../../../src/edges/worker/start-worker.ts";
import { satWithReviewStage } from "../../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../../edges/mcp/support/start-app.ts";
import { type SeededUser, seedUser } from "../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { publishProblem } from "../../verification/support/verification-harness.ts";

/**
 * Issue 6's acceptance, over MCP with the real SDK client, the real HTTP app and a real worker: a
 * Contract with a builtin sandbox stage and then a two-reviewer review stage; a participant
 * submits; two other participants pick, claim and accept (one first breaks the rubric and is
 * refused with the claim still open); the run is `verified`; the submitter cannot claim a seat
 * on their own submission.
 */
describeWithDatabase("a reviewed submission over MCP", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let worker: Runner;
  let submitter: SeededUser;
  let first: SeededUser;
  let second: SeededUser;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    worker = await startWorker(services, { concurrency: 2, pollInterval: 100 });
    const author = await seedUser(db.sql, "review-author", { capabilities: ["author"] });
    submitter = await seedUser(db.sql, "sat-solver-x9", { scopes: ["read", "contribute"] });
    first = await seedUser(db.sql, "first-reviewer", { scopes: ["read", "contribute"] });
    second = await seedUser(db.sql, "second-reviewer", { scopes: ["read", "contribute"] });
    const files = satWithReviewStage();
    const problem = await publishProblem(services, author.principal, files);
    await db.sql`update problems set visibility = 'listed' where id = ${problem.problem_id}`;
    await settled(async () => {
      const [row] = await db.sql<{ pending: number }[]>`
        select count(*)::int as pending from verifier_implementations where conformance->>'status' = 'pending'`;
      return row!.pending === 0 ? true : null;
    }, "conformance");
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await worker?.stop();
    await app?.close();
  });

  async function connect(user: SeededUser) {
    const client = await clientLines[0].connect(app.url, user.token);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool(name, args);
      const envelope = envelopeOf(result) as Record<string, any>;
      if (result.isError)
        throw Object.assign(new Error(`${name} failed: ${JSON.stringify(envelope)}`), envelope);
      return envelope;
    };
    const refused = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool(name, args);
      expect(result.isError, `${name} should be refused`).toBe(true);
      return (envelopeOf(result) as { error: Record<string, any> }).error;
    };
    return { call, refused };
  }

  it("verifies the submission after two other participants claim and accept it", async () => {
    const solver = await connect(submitter);
    const one = await connect(first);
    const two = await connect(second);

    // 1. The participant submits a satisfying assignment.
    const problemSlug = "small-sat";
    const { attempt } = await solver.call("start_attempt", { problem: problemSlug });
    const { artifact } = await solver.call("upload_artifact", {
      attempt_id: attempt.id,
      filename: "answer.txt",
      content_text: "v 1 2 -3 0\n",
    });
    const { verification_run_id } = await solver.call("create_submission", {
      attempt_id: attempt.id,
      artifacts: [{ role: "assignment", artifact_id: artifact.id }],
    });

    // 2. Once the sandbox stage passed, the review stage offers two seats.
    const seat = await settled(async () => {
      const { seats } = await one.call("pick_review", { problem: problemSlug });
      return seats[0] ?? null;
    }, "a review seat");
    expect(seat).toMatchObject({ node_id: "readers", open_seats: 2 });
    const args = { review_process_id: seat.review_process_id, node_id: seat.node_id };
    expect((await two.call("pick_review", {})).seats).toHaveLength(1);

    // 3. The submitter finds no seat and cannot claim one on their own submission.
    expect((await solver.call("pick_review", {})).seats).toEqual([]);
    expect(await solver.refused("claim_review", args)).toMatchObject({ code: "conflict_of_interest" });

    // 4. Both claim; the bundles are blinded.
    const claimOne = await one.call("claim_review", args);
    const claimTwo = await two.call("claim_review", args);
    for (const claim of [claimOne, claimTwo]) {
      expect(claim).toMatchObject({ assignment: { status: "claimed" }, hold_until: expect.any(String) });
      expect(claim.case_url).toBe(`${app.url}/reviews/${args.review_process_id}/nodes/readers`);
      expect(claim.assignment_url).toBe(`${app.url}/review-assignments/${claim.assignment.id}`);
      const text = JSON.stringify(claim);
      expect(text).not.toContain(submitter.id);
      expect(text).not.toContain(submitter.handle);
    }

    // 5. A response that breaks the rubric is refused, naming every problem; the claim stays open.
    const broken = await one.refused("submit_review_response", {
      assignment_id: claimOne.assignment.id,
      response: { verdict: "perhaps" },
      rationale_md: "",
      citations: [],
    });
    expect(broken.code).toBe("response_rejected");
    expect(broken.problems.map((p: { path: string }) => p.path)).toEqual(
      expect.arrayContaining(["/response/verdict", "/rationale_md"]),
    );
    const still = await one.call("get_review_assignment", { assignment_id: claimOne.assignment.id });
    expect(still.assignment.status).toBe("claimed");

    // 6. Both accept; the first reviewer does not see the second's response before the node completes.
    const accepted = await one.call("submit_review_response", {
      assignment_id: claimOne.assignment.id,
      response: { verdict: "accept" },
      rationale_md: "first-reviewer-rationale: every clause holds.",
      citations: [],
    });
    expect(accepted.assignment).toMatchObject({
      status: "submitted",
      judgment: { response: { verdict: "accept" } },
    });
    const caseForTwo = await two.call("get_review_case", args);
    expect(JSON.stringify(caseForTwo)).not.toContain("first-reviewer-rationale");
    await two.call("submit_review_response", {
      assignment_id: claimTwo.assignment.id,
      response: { verdict: "accept" },
      rationale_md: "Checked every clause.",
      citations: [],
      confidence: 0.9,
    });

    // 7. The run finishes verified, and the process shows its reduction.
    const verification = await settled(async () => {
      const { verification } = await solver.call("get_verification", { verification_run_id });
      return verification.status === "finished" ? verification : null;
    }, "the run");
    expect(verification.result).toBe("verified");
    const review = verification.stage_results.find((s: { kind: string }) => s.kind === "review");
    expect(review).toMatchObject({
      result: "verified",
      mechanism: { review: { review_process_id: args.review_process_id } },
    });
    const { review_process } = await solver.call("get_review_process", {
      review_process_id: args.review_process_id,
    });
    expect(review_process).toMatchObject({ status: "finished", outcome: "accept", reader_role: "submitter" });
    const decision = review_process.nodes.find((n: { id: string }) => n.id === "decision");
    expect(decision.reduction.outcome).toBe("accept");
    expect(decision.reduction.steps.length).toBeGreaterThan(0);
  }, 120_000);
});

/** Polls `probe` until it returns a value (a worker is doing the work), or fails after 60 s. */
async function settled<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`${what} did not settle`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
