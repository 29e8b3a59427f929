import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { startWorker } from "../../../src/edges/worker/start-worker.ts";
import { claimReview } from "../../../src/reviews/claim-review.ts";
import { submitReviewResponse } from "../../../src/reviews/submit-review-response.ts";
import type { Principal } from "../../../src/users/principal.ts";
import { getVerification } from "../../../src/verification/get-verification.ts";
import { STALL_MS, sweepStalledRuns } from "../../../src/verification/sweep-stalled-runs.ts";
import type { VerificationRun } from "../../../src/verification/verification-run.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  newAuthor,
  newUser,
} from "../../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "../../verification/support/verification-harness.ts";
import { listProblem, reviewers, verdict } from "./support/review-harness.ts";

/** The builtin SAT problem with a two-reviewer review stage after its sandbox stage. */
function satThenReview(): Files {
  const sat = fixturePackage("valid-builtin-sat");
  const review = fixturePackage("valid-review");
  return editJson(
    { ...sat, "review-protocol.json": review["review-protocol.json"]! },
    "verifier-contract.json",
    (contract) => {
      (contract.stages as unknown[]).push({
        key: "peer_review",
        kind: "review",
        title: "Peer review",
        description_md: "",
        evidence_schema: null,
        review_protocol_id: "./review-protocol.json",
        rule_owner: "contract",
        acceptance: "Two reviewers accept the assignment's write-up.",
        external_system: null,
      });
    },
  );
}

/** Polls the database until `check` holds (the worker picks jobs up by LISTEN/NOTIFY or polling). */
async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until)
      throw new Error(`still not there after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeWithDatabase("review stages of verification runs, with the worker running", () => {
  const db = useTestDatabase();
  let services: Services;
  let solver: Principal;
  let problem: PublishedProblem;
  let runner: Runner;

  beforeAll(async () => {
    services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    problem = await publishProblem(services, author, satThenReview());
    await listProblem(db.sql, problem.problem_id);
    await passConformance(db.sql, problem.verifier_contract_id);
    runner = await startWorker(services, { concurrency: 1, pollInterval: 100 });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  const run = (runId: string) =>
    getVerification(
      services.sql,
      { userId: solver.user.id, isAdministrator: false },
      runId,
      "http://x",
      services.clock(),
    );

  /** Submits a satisfying assignment and waits until the review stage opens its seats. */
  async function submitAndAwaitReview() {
    const { verification_run_id: runId } = await seedSubmission(services, solver, problem, [
      { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0" },
    ]);
    const [process] = await eventually(
      () => db.sql<{ id: string }[]>`
        select p.id from review_processes p join review_nodes n on n.review_process_id = p.id
        where p.verification_run_id = ${runId} and n.node_id = 'readers' and n.status = 'open'`,
      (rows) => rows.length === 1,
    );
    return { runId, processId: process!.id };
  }

  async function reviewTwice(processId: string, value: "accept" | "reject") {
    for (const reviewer of await reviewers(db.sql, 2)) {
      const held = await claimReview(services, reviewer.user.id, {
        review_process_id: processId,
        node_id: "readers",
      });
      await submitReviewResponse(services, reviewer.user.id, { assignment_id: held.id, ...verdict(value) });
    }
  }

  it("waits on the review without polling or stalling, then finishes verified after two accepts", async () => {
    const { runId, processId } = await submitAndAwaitReview();
    // 1. While the review is open the run is running, has no job, and the stalled-run sweep leaves it.
    const waiting = await run(runId);
    expect(waiting.status).toBe("running");
    expect(waiting.stage_results.map((s) => [s.stage_key, s.status, s.result])).toEqual([
      ["sat_check", "finished", "verified"],
      ["peer_review", "running", null],
    ]);
    await eventually(
      () => db.sql`select 1 from graphile_worker.jobs where key = ${runId}`,
      (rows) => rows.length === 0,
    );
    const later = { ...services, clock: () => new Date(Date.now() + STALL_MS * 10) };
    expect(await sweepStalledRuns(later)).not.toContain(runId);
    // 2. The submitter cannot review their own work.
    await expect(
      claimReview(services, solver.user.id, { review_process_id: processId, node_id: "readers" }),
    ).rejects.toMatchObject({ code: "conflict_of_interest" });
    // 3. Two accepts finish the process; the run is enqueued again and verifies.
    await reviewTwice(processId, "accept");
    const done: VerificationRun = await eventually(
      () => run(runId),
      (r) => r.status === "finished",
    );
    expect(done.result).toBe("verified");
    const stage = done.stage_results[1]!;
    expect(stage).toMatchObject({
      stage_key: "peer_review",
      kind: "review",
      status: "finished",
      result: "verified",
    });
    expect(stage.mechanism).toMatchObject({
      sandbox: null,
      external: null,
      review: { review_process_id: processId },
    });
    expect(stage.mechanism.review!.protocol_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(stage.mechanism.review!.review_protocol_id).toMatch(/^rpt_/);
    expect(stage.evidence_md).toContain("**accept**");
    const [row] = await db.sql`select restarts from verification_runs where id = ${runId}`;
    expect(row!.restarts).toBe(0);
  });

  it("finishes refuted after two rejects, with one process per run and stage", async () => {
    const { runId, processId } = await submitAndAwaitReview();
    await reviewTwice(processId, "reject");
    const done = await eventually(
      () => run(runId),
      (r) => r.status === "finished",
    );
    expect(done.result).toBe("refuted");
    expect(done.stage_results[1]).toMatchObject({ result: "refuted" });
    const processes = await db.sql`select id from review_processes where verification_run_id = ${runId}`;
    expect(processes).toHaveLength(1);
  });
});
