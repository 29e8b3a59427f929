import { expect, it } from "vitest";
import { recordScheduledReleases } from "../../src/agents/record-scheduled-releases.ts";
import { advanceReviewProcess } from "../../src/reviews/advance-review-process.ts";
import { modernRpc } from "../edges/mcp/support/json-rpc.ts";
import { fixtureNode, fixtureProtocol, seedReview } from "../reviews/surface/support/review-fixture.ts";
import { at, BAD_ASSIGNMENT, sealing, T0, useSealedFixture } from "../sealing/support/sealed-fixture.ts";
import type { SeededUser } from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";

/**
 * No event shows anything its subscriber could not read: a finished run of sealed work names the
 * run and never its withheld outcome, and only to its owner; a seat on private work is announced
 * to nobody who cannot read the work, however the protocol's eligibility reads.
 */
describeWithDatabase("events leak nothing", () => {
  const f = useSealedFixture();

  async function events(user: SeededUser): Promise<Array<{ kind: string; data: Record<string, unknown> }>> {
    const all: Array<{ kind: string; data: Record<string, unknown> }> = [];
    let cursor: string | undefined;
    for (;;) {
      const answer = await modernRpc(f.url, user.token, "events/list", {
        ...(cursor && { cursor }),
        limit: 200,
      });
      const page = answer.body.result as { events: typeof all; next_cursor: string; has_more: boolean };
      all.push(...page.events);
      cursor = page.next_cursor;
      if (!page.has_more) return all;
    }
  }

  it("a finished run of sealed work: its owner sees the ids and no outcome; nobody else sees it", async () => {
    f.setNow(T0);
    await f.sealedProblem(
      "sealed-events",
      sealing({ mode: "final_only", releaseAt: at(30), closesAt: at(20) }),
    );
    const run = await f.submit(f.solver, "sealed-events", BAD_ASSIGNMENT);
    await f.execute(run.verification_run_id);
    // The manager reads the refuted outcome: there is something to withhold.
    const [row] = await f.services
      .sql`select result from verification_runs where id = ${run.verification_run_id}`;
    expect(row!.result).toBe("refuted");

    const mine = (await events(f.solver)).filter(
      (e) => e.data.verification_run_id === run.verification_run_id,
    );
    expect(mine).toEqual([
      expect.objectContaining({
        kind: "verification.run_finished",
        data: {
          verification_run_id: run.verification_run_id,
          submission_id: run.submission_id,
          attempt_id: run.attempt_id,
          problem_id: expect.any(String),
        },
      }),
    ]);
    expect(JSON.stringify(mine)).not.toMatch(/refuted|"result"|"score"/);
    for (const other of [f.rival, f.owner]) {
      expect((await events(other)).filter((e) => e.kind === "verification.run_finished")).toEqual([]);
    }
  });

  it("a revoked run is a run_revoked criteria change of its owner, and of nobody else", async () => {
    f.setNow(T0);
    await f.sealedProblem(
      "revoked-run",
      sealing({ mode: "final_only", releaseAt: at(30), closesAt: at(20) }),
    );
    const run = await f.submit(f.solver, "revoked-run", BAD_ASSIGNMENT);
    await f.execute(run.verification_run_id);
    const revoked = await modernRpc(f.url, f.admin.token, "tools/call", {
      name: "revoke_verification",
      arguments: {
        verification_run_id: run.verification_run_id,
        reason_md: "The checker image was mislabelled.",
      },
    });
    expect(revoked.body.result?.isError).toBeFalsy();
    const listed = await modernRpc(f.url, f.solver.token, "tools/call", {
      name: "list_criteria_changes",
      arguments: { problem: "revoked-run" },
    });
    const changes = JSON.parse((listed.body.result as { content: Array<{ text: string }> }).content[0]!.text);
    expect(changes.criteria_changes).toEqual([
      expect.objectContaining({
        kind: "run_revoked",
        reason: "The checker image was mislabelled.",
        changed: ["verification_run"],
        affected_attempts: [{ attempt_id: run.attempt_id, problem_revision_id: expect.any(String) }],
      }),
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/refuted/);
    const announced = (await events(f.solver)).filter(
      (e) => e.data.verification_run_id === run.verification_run_id,
    );
    expect(announced.map((e) => e.kind)).toEqual(["verification.run_finished", "criteria.changed"]);
    for (const other of [f.rival, f.owner]) {
      expect((await events(other)).filter((e) => e.kind === "criteria.changed")).toEqual([]);
    }
  });

  it("an early release of sealed inputs is an inputs_released criteria change for those with attempts on it", async () => {
    f.setNow(T0);
    const problem = await f.sealedProblem(
      "released-early",
      sealing({ mode: "final_only", releaseAt: at(30), closesAt: at(20) }),
    );
    const run = await f.submit(f.solver, "released-early", BAD_ASSIGNMENT);
    const tool = async (user: SeededUser, name: string, args: Record<string, unknown>) => {
      const answer = await modernRpc(f.url, user.token, "tools/call", { name, arguments: args });
      return JSON.parse((answer.body.result as { content: Array<{ text: string }> }).content[0]!.text);
    };
    const plan = await tool(f.owner, "prepare_reference_release", { revision_id: problem.revisionId });
    await tool(f.owner, "unseal_reference_inputs", {
      revision_id: problem.revisionId,
      reason_md: "Answers published early.",
      acknowledgement_fingerprint: plan.acknowledgement_fingerprint,
    });
    const { criteria_changes } = await tool(f.solver, "list_criteria_changes", { problem: "released-early" });
    expect(criteria_changes).toEqual([
      expect.objectContaining({
        kind: "inputs_released",
        reason: "Answers published early.",
        changed: ["sealed_inputs"],
        affected_attempts: [{ attempt_id: run.attempt_id, problem_revision_id: problem.revisionId }],
      }),
    ]);
    expect(
      (await tool(f.rival, "list_criteria_changes", { problem: "released-early" })).criteria_changes,
    ).toEqual([]);
  });

  it("sealed inputs released by date are an inputs_released criteria change dated sealed_until, written once however often the task runs; none after an early release", async () => {
    f.setNow(T0);
    const problem = await f.sealedProblem(
      "released-by-date",
      sealing({ mode: "immediate", sealedUntil: at(10) }),
    );
    const run = await f.submit(f.solver, "released-by-date", BAD_ASSIGNMENT);
    const changes = async (user: SeededUser, slug: string) => {
      const answer = await modernRpc(f.url, user.token, "tools/call", {
        name: "list_criteria_changes",
        arguments: { problem: slug },
      });
      return JSON.parse((answer.body.result as { content: Array<{ text: string }> }).content[0]!.text)
        .criteria_changes as Array<Record<string, unknown>>;
    };
    f.setNow(at(9));
    await recordScheduledReleases(f.services);
    expect(await changes(f.solver, "released-by-date")).toEqual([]);

    // The task runs late, and twice: one change, dated at the release.
    f.setNow(at(11));
    await recordScheduledReleases(f.services);
    await recordScheduledReleases(f.services);
    const written = await changes(f.solver, "released-by-date");
    expect(written).toEqual([
      expect.objectContaining({
        kind: "inputs_released",
        reason: expect.stringContaining("scheduled date"),
        changed: ["sealed_inputs"],
        affected_attempts: [{ attempt_id: run.attempt_id, problem_revision_id: problem.revisionId }],
        created_at: at(10),
      }),
    ]);
    const criteriaEvents = (await events(f.solver)).filter(
      (e) => e.kind === "criteria.changed" && e.data.criteria_change_id === written[0]!.criteria_change_id,
    );
    expect(criteriaEvents).toHaveLength(1);
    expect(await changes(f.rival, "released-by-date")).toEqual([]);

    // The revision released early (the test above) reaches its date: its early change stays the only one.
    f.setNow(at(61));
    await recordScheduledReleases(f.services);
    expect(await changes(f.solver, "released-early")).toEqual([
      expect.objectContaining({ reason: "Answers published early." }),
    ]);
  });

  it("a seat opened on private work is announced to nobody who cannot read it", async () => {
    const review = await seedReview(f.services, {
      owner: f.owner.id,
      submitter: f.solver.id,
      slug: "private-seat",
      protocol: fixtureProtocol([fixtureNode("readers", { count: 1, title: "Private readers" })]),
      now: T0,
    });
    await f.services.sql`update problems set visibility = 'private' where id = ${review.problemId}`;
    await advanceReviewProcess(f.services, review.processId);
    const seatEvents = async (user: SeededUser) =>
      (await events(user)).filter((e) => e.data.review_process_id === review.processId);
    // any_participant would let the rival review, but the rival cannot read private work.
    expect(await seatEvents(f.rival)).toEqual([]);
    expect(await seatEvents(f.solver)).toEqual([]);
    expect(await seatEvents(f.owner)).toHaveLength(1);
    const jobs = await modernRpc(f.url, f.rival.token, "tools/call", {
      name: "list_agent_jobs",
      arguments: {},
    });
    expect(JSON.stringify(jobs.body)).not.toContain(review.processId);
  });
});
