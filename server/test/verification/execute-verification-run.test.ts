import { beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { settleEvents } from "../../src/events/settle-events.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun, MAX_RESTARTS } from "../../src/verification/execute-verification-run.ts";
import { getVerification } from "../../src/verification/get-verification.ts";
import { readWaitingStages } from "../../src/verification/waiting-stages.ts";
import { newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "./support/verification-harness.ts";

const BASE = "http://svc.test";

describeWithDatabase("executing a verification run", () => {
  const db = useTestDatabase();
  let services: Services;
  let author: Principal;
  let solver: Principal;
  let sat: PublishedProblem;

  beforeAll(async () => {
    services = testServices(db.sql, { baseUrl: BASE });
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
  });

  const read = (runId: string) =>
    getVerification(db.sql, { userId: solver.user.id, isAdministrator: false }, runId, BASE, new Date());
  const assignment = (text: string) => [
    { role: "assignment", filename: "a.txt", media_type: "text/plain", content: text },
  ];

  it("queues a run with no stage results, then verifies a satisfying assignment with the builtin", async () => {
    const { verification_run_id } = await seedSubmission(services, solver, sat, assignment("v 1 2 -3 0\n"));
    const queued = await read(verification_run_id);
    expect(queued).toMatchObject({
      status: "queued",
      result: null,
      score: null,
      evidence_md: "",
      stage_results: [],
    });
    expect(queued.started_at).toBeNull();

    expect(await executeVerificationRun(services, verification_run_id)).toEqual({
      kind: "finished",
      result: "verified",
    });
    const run = await read(verification_run_id);
    expect(run).toMatchObject({ status: "finished", result: "verified", score: null, trigger: "submission" });
    expect(run.started_at).not.toBeNull();
    expect(run.finished_at).not.toBeNull();
    expect(run.stage_results).toHaveLength(1);
    const [stage] = run.stage_results;
    expect(stage).toMatchObject({
      stage_key: "sat_check",
      kind: "sandbox",
      status: "finished",
      result: "verified",
    });
    expect(stage!.mechanism.sandbox).toMatchObject({
      verifier_implementation_id: sat.implementation_ids[0],
      backend: "builtin",
      duration_ms: null,
      exit_code: null,
    });
    expect(stage!.mechanism.review).toBeNull();
    expect(stage!.log).toMatchObject({
      resource_uri: `svc://verifications/${verification_run_id}/stages/sat_check/log`,
      url: `${BASE}/verifications/${verification_run_id}/stages/sat_check/log`,
      truncated: false,
    });
    expect(run.evidence_md).toContain("sat_check");
  });

  it("refutes an assignment that leaves a clause false, and a second execution changes nothing", async () => {
    const { verification_run_id } = await seedSubmission(services, solver, sat, assignment("v -1 2 -3 0\n"));
    await executeVerificationRun(services, verification_run_id);
    const first = await read(verification_run_id);
    expect(first).toMatchObject({ status: "finished", result: "refuted" });
    expect(await executeVerificationRun(services, verification_run_id)).toEqual({ kind: "skipped" });
    expect(await read(verification_run_id)).toEqual(first);
  });

  it("records one stage result, one verdict and one run_finished event when two executions race", async () => {
    const { verification_run_id } = await seedSubmission(services, solver, sat, assignment("v 1 2 -3 0\n"));
    const outcomes = await Promise.all([
      executeVerificationRun(services, verification_run_id),
      executeVerificationRun(services, verification_run_id),
    ]);
    for (const outcome of outcomes) expect(["finished", "skipped"]).toContain(outcome.kind);
    const run = await read(verification_run_id);
    expect(run).toMatchObject({ status: "finished", result: "verified" });
    expect(run.stage_results).toHaveLength(1);
    await settleEvents(db.sql);
    const [events] = await db.sql<{ count: number }[]>`
      select count(*)::int as count from events
      where kind = 'verification.run_finished' and data->>'verification_run_id' = ${verification_run_id}`;
    expect(events!.count).toBe(1);
  });

  it("is inconclusive when the assignment does not parse", async () => {
    const { verification_run_id } = await seedSubmission(services, solver, sat, assignment("one two three"));
    await executeVerificationRun(services, verification_run_id);
    expect(await read(verification_run_id)).toMatchObject({ result: "inconclusive" });
  });

  it("waits while the stage's implementation is pending conformance, and is inconclusive without one", async () => {
    // Another Contract (its title differs), so its implementation is new and pending.
    const files = withSlug("valid-builtin-sat", "sat-pending");
    const contract = JSON.parse(Buffer.from(files["verifier-contract.json"]!).toString());
    contract.title = "Satisfying assignment, pending";
    files["verifier-contract.json"] = JSON.stringify(contract);
    const pending = await publishProblem(services, author, files);
    const { verification_run_id } = await seedSubmission(services, solver, pending, assignment("v 1 2 -3 0"));
    const waiting = await executeVerificationRun(services, verification_run_id);
    expect(waiting.kind).toBe("waiting");
    expect(await read(verification_run_id)).toMatchObject({ status: "running", result: null });

    await db.sql`
      update verifier_implementations set conformance = jsonb_set(conformance, '{status}', '"failed"')
      where verifier_contract_id = ${pending.verifier_contract_id}`;
    expect(await executeVerificationRun(services, verification_run_id)).toEqual({
      kind: "finished",
      result: "inconclusive",
    });
    const run = await read(verification_run_id);
    // The stage ran no mechanism, so the record lists no stage; the run's evidence says why.
    expect(run.stage_results).toEqual([]);
    expect(run.evidence_md).toMatch(/no implementation whose conformance fixtures passed/);
  });

  it("re-polls a waiting stage any number of times without counting restarts, then runs it", async () => {
    const files = withSlug("valid-builtin-sat", "sat-long-wait");
    const contract = JSON.parse(Buffer.from(files["verifier-contract.json"]!).toString());
    contract.title = "Satisfying assignment, long pending";
    files["verifier-contract.json"] = JSON.stringify(contract);
    const pending = await publishProblem(services, author, files);
    const { verification_run_id } = await seedSubmission(services, solver, pending, assignment("v 1 2 -3 0"));
    for (let poll = 0; poll < MAX_RESTARTS + 3; poll++) {
      expect((await executeVerificationRun(services, verification_run_id)).kind).toBe("waiting");
    }
    // A stage waiting for its conformance has no mechanism yet: it waits beside the record.
    expect((await read(verification_run_id)).stage_results).toEqual([]);
    expect(await readWaitingStages(db.sql, verification_run_id)).toEqual([
      expect.objectContaining({ stage_key: "sat_check", status: "queued" }),
    ]);
    const [row] = await db.sql<{ restarts: number }[]>`
      select restarts from verification_runs where id = ${verification_run_id}`;
    expect(row!.restarts).toBe(0);

    await passConformance(db.sql, pending.verifier_contract_id);
    expect(await executeVerificationRun(services, verification_run_id)).toEqual({
      kind: "finished",
      result: "verified",
    });
  });

  it("finishes review and external stages inconclusive, after the sandbox stage passes", async () => {
    const files = withSlug("valid-builtin-sat", "sat-with-external");
    const contract = JSON.parse(Buffer.from(files["verifier-contract.json"]!).toString());
    contract.stages.push({
      key: "partner_check",
      kind: "external",
      title: "Partner attestation",
      acceptance: "The partner attests the assignment.",
      rule_owner: "partner",
      external_system: "partner-lab",
    });
    files["verifier-contract.json"] = JSON.stringify(contract);
    const problem = await publishProblem(services, author, files);
    await passConformance(db.sql, problem.verifier_contract_id);
    const { verification_run_id } = await seedSubmission(services, solver, problem, assignment("v 1 2 -3 0"));
    await executeVerificationRun(services, verification_run_id);
    const run = await read(verification_run_id);
    expect(run.result).toBe("inconclusive");
    // The external stage was never attested: it has no mechanism and the record lists the sandbox stage.
    expect(run.stage_results.map((s) => [s.stage_key, s.result])).toEqual([["sat_check", "verified"]]);
    expect(run.evidence_md).toMatch(/`partner_check` \(external\): inconclusive/);
    expect(run.evidence_md).toMatch(/partner-lab/);
  });

  it("stops at the first stage that does not pass", async () => {
    const files = withSlug("valid-builtin-sat", "sat-two-stages");
    const contract = JSON.parse(Buffer.from(files["verifier-contract.json"]!).toString());
    contract.stages.push({ ...contract.stages[0], key: "sat_again", title: "Again" });
    for (const fixture of [...contract.conformance_fixtures]) {
      contract.conformance_fixtures.push({ ...fixture, key: `${fixture.key}_again`, stage_key: "sat_again" });
    }
    files["verifier-contract.json"] = JSON.stringify(contract);
    const problem = await publishProblem(services, author, files);
    await passConformance(db.sql, problem.verifier_contract_id);
    const { verification_run_id } = await seedSubmission(
      services,
      solver,
      problem,
      assignment("v -1 -2 -3 0"),
    );
    await executeVerificationRun(services, verification_run_id);
    const run = await read(verification_run_id);
    expect(run.result).toBe("refuted");
    expect(run.stage_results.map((s) => s.stage_key)).toEqual(["sat_check"]);
  });

  it("finishes a run inconclusive without running anything when its submission was withdrawn first", async () => {
    const { verification_run_id, submission_id } = await seedSubmission(
      services,
      solver,
      sat,
      assignment("v 1 2 -3 0"),
    );
    await db.sql`update submissions set status = 'withdrawn', withdrawn_at = now() where id = ${submission_id}`;
    expect(await executeVerificationRun(services, verification_run_id)).toEqual({
      kind: "finished",
      result: "inconclusive",
    });
    const run = await read(verification_run_id);
    expect(run).toMatchObject({ status: "finished", result: "inconclusive", stage_results: [] });
    expect(run.evidence_md).toMatch(/withdrawn before its verification began/);
  });

  describe("after a worker died mid-stage", () => {
    it("restarts the half-run stage, and past the bound finishes the run error", async () => {
      const { verification_run_id: id } = await seedSubmission(
        services,
        solver,
        sat,
        assignment("v 1 2 -3 0"),
      );
      await db.sql`update verification_runs set status = 'running', started_at = now() where id = ${id}`;
      const halfRun = () => db.sql`
        insert into verification_stage_results (verification_run_id, position, stage_key, kind, status, started_at)
        values (${id}, 0, 'sat_check', 'sandbox', 'running', now())
        on conflict (verification_run_id, position) do nothing`;
      await halfRun();
      await db.sql`update verification_runs set restarts = ${MAX_RESTARTS - 1} where id = ${id}`;
      expect(await executeVerificationRun(services, id)).toEqual({ kind: "finished", result: "error" });
      const run = await read(id);
      expect(run).toMatchObject({ status: "finished", result: "error" });
      // The half-run row names no mechanism (as one written before its mechanism was fixed would).
      expect(run.stage_results).toEqual([]);
      expect(run.evidence_md).toMatch(/stopped its worker 3 times/);
    });

    it("runs the half-run stage again when under the bound", async () => {
      const { verification_run_id: id } = await seedSubmission(
        services,
        solver,
        sat,
        assignment("v 1 2 -3 0"),
      );
      await db.sql`update verification_runs set status = 'running', started_at = now() where id = ${id}`;
      await db.sql`
        insert into verification_stage_results (verification_run_id, position, stage_key, kind, status, started_at)
        values (${id}, 0, 'sat_check', 'sandbox', 'running', now())`;
      expect(await executeVerificationRun(services, id)).toEqual({ kind: "finished", result: "verified" });
      const [row] = await db.sql`select restarts from verification_runs where id = ${id}`;
      expect(row!.restarts).toBe(1);
    });
  });

  describe("the database keeps the record's rules", () => {
    it("refuses moving a status backwards and rewriting a finished result", async () => {
      const { verification_run_id: id } = await seedSubmission(
        services,
        solver,
        sat,
        assignment("v 1 2 -3 0"),
      );
      await executeVerificationRun(services, id);
      await expect(db.sql`update verification_runs set status = 'running' where id = ${id}`).rejects.toThrow(
        /verification_runs\.status moves forward only \(finished to running\)/,
      );
      await expect(
        db.sql`update verification_stage_results set status = 'queued' where verification_run_id = ${id}`,
      ).rejects.toThrow(/verification_stage_results\.status moves forward only \(finished to queued\)/);
      await expect(db.sql`update verification_runs set result = 'refuted' where id = ${id}`).rejects.toThrow(
        /write-once/,
      );
      await expect(db.sql`delete from verification_runs where id = ${id}`).rejects.toThrow(/never deleted/);
      await expect(
        db.sql`update verification_stage_results set result = 'refuted' where verification_run_id = ${id}`,
      ).rejects.toThrow(/write-once/);
    });
  });
});

/** A lint fixture with another problem slug, so one test database holds several. */
function withSlug(name: string, slug: string) {
  const files = fixturePackageCopy(name);
  const problem = JSON.parse(Buffer.from(files["problem.json"]!).toString());
  problem.slug = slug;
  files["problem.json"] = JSON.stringify(problem);
  return files;
}

import { fixturePackage } from "../authoring/support/authoring-harness.ts";

function fixturePackageCopy(name: string) {
  return { ...fixturePackage(name) };
}
