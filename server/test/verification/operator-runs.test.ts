import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { seedImplementation } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "./support/verification-harness.ts";

/**
 * Operator runs and bulk revocation over MCP (spec 2.4 and 3): an administrator revokes every
 * finished run of an implementation found not matching its Contract in one action with one
 * reason (write-once per run; revoked runs stop counting toward the Submission's verdict), and
 * starts `manual` runs, which pick the stage's current implementation.
 */
describeWithDatabase("operator runs and bulk revocation", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let author: Principal;
  let solver: Principal;
  let operator: Principal;
  let sat: PublishedProblem;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    operator = await newUser(db.sql, { admin: true });
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
    await db.sql`update problems set visibility = 'unlisted' where id = ${sat.problem_id}`;
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function call(who: Principal, name: string, args: Record<string, unknown>) {
    const { token } = await issueToken(db.sql, who.user.handle, ["read", "contribute"]);
    const client = await clientLines[0].connect(app.url, token);
    clients.push(client);
    const result = await client.callTool(name, args);
    return { isError: result.isError === true, body: envelopeOf(result) as Record<string, any> };
  }

  const assignment = (text: string) => [
    { role: "assignment", filename: "a.txt", media_type: "text/plain", content: text },
  ];
  async function finishedRun(text: string) {
    const seeded = await seedSubmission(services, solver, sat, assignment(text));
    await executeVerificationRun(services, seeded.verification_run_id);
    return seeded;
  }

  it("revokes every finished run of an implementation in one action, once per run; they stop counting", async () => {
    const [v1] = sat.implementation_ids;
    const good = await finishedRun("v 1 2 -3 0\n");
    const bad = await finishedRun("v -1 2 -3 0\n");
    const earlier = await finishedRun("v 1 2 -3 0\n");
    const individually = await call(operator, "revoke_verification", {
      verification_run_id: earlier.verification_run_id,
      reason_md: "looked wrong first",
    });
    expect(individually.isError).toBe(false);
    const unfinished = await seedSubmission(services, solver, sat, assignment("v 1 2 -3 0\n"));
    // A run of another implementation of the stage is not touched.
    const v2 = await seedImplementation(db.sql, {
      contractId: sat.verifier_contract_id,
      stageKey: "sat_check",
      author: author.user.id,
    });
    const other = await finishedRun("v 1 2 -3 0\n");
    const [otherStage] = await db.sql`
      select mechanism from verification_stage_results where verification_run_id = ${other.verification_run_id}`;
    expect(otherStage!.mechanism.sandbox.verifier_implementation_id).toBe(v2);

    const before = await call(solver, "get_submission", { submission_id: good.submission_id });
    expect(before.body.submission.latest_verification).toMatchObject({
      id: good.verification_run_id,
      result: "verified",
    });

    // The author of the implementation is not an operator.
    const byAuthor = await call(author, "revoke_implementation_runs", {
      verifier_implementation_id: v1,
      reason_md: "mine",
    });
    expect(byAuthor.body).toMatchObject({ error: { code: "forbidden" } });

    const revoked = await call(operator, "revoke_implementation_runs", {
      verifier_implementation_id: v1,
      reason_md: "accepts assignments that leave a clause unsatisfied",
    });
    expect(revoked.isError).toBe(false);
    expect(revoked.body).toMatchObject({
      verifier_implementation_id: v1,
      revocation: {
        revoked_by_user_id: operator.user.id,
        reason_md: "accepts assignments that leave a clause unsatisfied",
      },
      revoked_verification_run_ids: [good.verification_run_id, bad.verification_run_id].sort(),
      already_revoked_verification_run_ids: [earlier.verification_run_id],
      // Queued, it has no stage yet: it will run whatever is current when it starts.
      unfinished_verification_run_ids: [],
    });
    expect(unfinished.verification_run_id).toMatch(/^vrn_/);

    // Each revoked run carries the one revocation and keeps its result; the earlier one keeps its own.
    const goodRun = await call(solver, "get_verification", { verification_run_id: good.verification_run_id });
    expect(goodRun.body.verification).toMatchObject({
      result: "verified",
      revocation: revoked.body.revocation,
    });
    const badRun = await call(solver, "get_verification", { verification_run_id: bad.verification_run_id });
    expect(badRun.body.verification).toMatchObject({
      result: "refuted",
      revocation: revoked.body.revocation,
    });
    const earlierRun = await call(solver, "get_verification", {
      verification_run_id: earlier.verification_run_id,
    });
    expect(earlierRun.body.verification.revocation.reason_md).toBe("looked wrong first");
    const otherRun = await call(solver, "get_verification", {
      verification_run_id: other.verification_run_id,
    });
    expect(otherRun.body.verification.revocation).toBeNull();

    // A revoked run stops counting: the Submission has no verdict until a new run.
    const after = await call(solver, "get_submission", { submission_id: good.submission_id });
    expect(after.body.submission.latest_verification).toBeNull();
    expect(after.body.submission.verification_run_ids).toEqual([good.verification_run_id]);

    // Again: nothing new to revoke, every run already carries a revocation.
    const again = await call(operator, "revoke_implementation_runs", {
      verifier_implementation_id: v1,
      reason_md: "again",
    });
    expect(again.body.revoked_verification_run_ids).toEqual([]);
    expect(again.body.already_revoked_verification_run_ids).toHaveLength(3);

    // An operator's manual run re-examines the Submission with the current implementation (v2).
    const notOperator = await call(solver, "start_manual_verification", {
      submission_id: good.submission_id,
    });
    expect(notOperator.body).toMatchObject({ error: { code: "forbidden" } });
    const manual = await call(operator, "start_manual_verification", { submission_id: good.submission_id });
    expect(manual.body).toMatchObject({ submission_id: good.submission_id, trigger: "manual" });
    await executeVerificationRun(services, manual.body.verification_run_id);
    const manualRun = await call(solver, "get_verification", {
      verification_run_id: manual.body.verification_run_id,
    });
    expect(manualRun.body.verification).toMatchObject({
      trigger: "manual",
      result: "verified",
      revocation: null,
    });
    expect(manualRun.body.verification.stage_results[0].mechanism.sandbox.verifier_implementation_id).toBe(
      v2,
    );
    const recounted = await call(solver, "get_submission", { submission_id: good.submission_id });
    expect(recounted.body.submission.latest_verification).toMatchObject({
      id: manual.body.verification_run_id,
      result: "verified",
    });
    const [row] = await db.sql`
      select requested_by_user_id from verification_runs where id = ${manual.body.verification_run_id}`;
    expect(row!.requested_by_user_id).toBe(operator.user.id);
  });

  it("names the field of bad input and refuses unknown ids", async () => {
    const empty = await call(operator, "revoke_implementation_runs", {
      verifier_implementation_id: sat.implementation_ids[0],
      reason_md: "",
    });
    expect(empty.body).toMatchObject({ error: { code: "invalid_input" } });
    expect(JSON.stringify(empty.body)).toContain("reason_md");
    const unknown = await call(operator, "revoke_implementation_runs", {
      verifier_implementation_id: "vfi_0000000000",
      reason_md: "x",
    });
    expect(unknown.body).toMatchObject({ error: { code: "not_found" } });
    const noSubmission = await call(operator, "start_manual_verification", {
      submission_id: "sub_0000000000",
    });
    expect(noSubmission.body).toMatchObject({ error: { code: "not_found" } });
  });
});
