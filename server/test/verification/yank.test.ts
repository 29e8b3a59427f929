import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import {
  editJson,
  fixturePackage,
  newAuthor,
  newUser,
  publishFiles,
  uploadAndValidate,
} from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { seedImplementation, seedProtocol } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "./support/verification-harness.ts";

/**
 * Yanking (spec 3 and 9.5) over MCP: a VerifierImplementation by its publisher, write-once with a
 * reason, after which it runs nothing new, the stage's current implementation is recomputed and a
 * run waiting on the stage says so; a ReviewProtocol, which stays readable with its yanked_at.
 */
describeWithDatabase("yanking implementations and protocols", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let author: Principal;
  let solver: Principal;
  let admin: Principal;
  let stranger: Principal;
  let sat: PublishedProblem;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    admin = await newUser(db.sql, { admin: true });
    stranger = await newUser(db.sql);
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function clientOf(principal: Principal): Promise<TestClient> {
    const { token } = await issueToken(db.sql, principal.user.handle, ["read", "contribute"]);
    const client = await clientLines[0].connect(app.url, token);
    clients.push(client);
    return client;
  }

  async function call(who: Principal, name: string, args: Record<string, unknown>) {
    const result = await (await clientOf(who)).callTool(name, args);
    return { isError: result.isError === true, body: envelopeOf(result) as Record<string, any> };
  }

  const assignment = [
    { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0\n" },
  ];
  const stageOf = async (runId: string) => {
    const [row] = await db.sql<{ status: string; evidence_md: string; mechanism: any }[]>`
      select status, evidence_md, mechanism from verification_stage_results where verification_run_id = ${runId}`;
    return row!;
  };

  it("yanks an implementation once: the current one is recomputed and a waiting run says so, then runs the next", async () => {
    const [v1] = sat.implementation_ids;
    const contractId = sat.verifier_contract_id;
    const stageKey = "sat_check";
    // No version has passed its fixtures yet and v2 is pending: a run waits for v2.
    await db.sql`update verifier_implementations set conformance = conformance || '{"status": "pending"}' where id = ${v1!}`;
    const v2 = await seedImplementation(db.sql, {
      contractId,
      stageKey,
      author: author.user.id,
      status: "pending",
    });
    const { verification_run_id: waitingRun } = await seedSubmission(services, solver, sat, assignment);
    expect(await executeVerificationRun(services, waitingRun)).toMatchObject({ kind: "waiting" });
    expect(await stageOf(waitingRun)).toMatchObject({ status: "queued" });

    const yanked = await call(author, "yank_verifier_implementation", {
      verifier_implementation_id: v2,
      reason_md: "prints the reference answer into its log",
    });
    expect(yanked.isError).toBe(false);
    expect(yanked.body).toMatchObject({
      verifier_implementation_id: v2,
      verifier_contract_id: contractId,
      stage_key: stageKey,
      version_number: 2,
      yank: { yanked_by_user_id: author.user.id, reason_md: "prints the reference answer into its log" },
      current_implementation_id: null,
      waiting_verification_run_ids: [waitingRun],
    });
    expect(yanked.body.yank.yanked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const waiting = await stageOf(waitingRun);
    expect(waiting.evidence_md).toContain(
      `implementation ${v2} (version 2) was yanked: prints the reference answer`,
    );
    expect(waiting.evidence_md).toContain(
      `the stage waits for version 1 (${v1}) to pass its conformance fixtures`,
    );

    // Once v1 passes, the woken run runs it; the yanked v2 runs nothing, though it "passed" too.
    await passConformance(db.sql, contractId);
    expect(await executeVerificationRun(services, waitingRun)).toEqual({
      kind: "finished",
      result: "verified",
    });
    expect((await stageOf(waitingRun)).mechanism.sandbox.verifier_implementation_id).toBe(v1);

    // Write-once: a second yank is refused with the first one's details; the record is unchanged.
    const again = await call(admin, "yank_verifier_implementation", {
      verifier_implementation_id: v2,
      reason_md: "again",
    });
    expect(again).toMatchObject({
      isError: true,
      body: {
        error: { code: "already_yanked", yank: { reason_md: "prints the reference answer into its log" } },
      },
    });

    // An administrator yanks another user's current implementation; the stage falls back to v1.
    const v3 = await seedImplementation(db.sql, { contractId, stageKey, author: author.user.id });
    const byAdmin = await call(admin, "yank_verifier_implementation", {
      verifier_implementation_id: v3,
      reason_md: "accepts unsatisfying assignments",
    });
    expect(byAdmin.body).toMatchObject({
      current_implementation_id: v1,
      waiting_verification_run_ids: [],
      yank: { yanked_by_user_id: admin.user.id },
    });
    const { verification_run_id: next } = await seedSubmission(services, solver, sat, assignment);
    await executeVerificationRun(services, next);
    expect((await stageOf(next)).mechanism.sandbox.verifier_implementation_id).toBe(v1);

    // The contract's summary shows both yanks and v1 as current.
    const contract = await call(author, "get_verifier_contract", { verifier_contract_id: contractId });
    const byId = new Map(
      (
        contract.body.implementations as Array<{ id: string; yanked_at: string | null; current: boolean }>
      ).map((i) => [i.id, i]),
    );
    expect(byId.get(v1!)).toMatchObject({ yanked_at: null, current: true });
    expect(byId.get(v2)).toMatchObject({ yanked_at: yanked.body.yank.yanked_at, current: false });
    expect(byId.get(v3)?.yanked_at).not.toBeNull();
  });

  it("a run whose stage has no implementation left finishes inconclusive, naming the yank", async () => {
    const [v1] = sat.implementation_ids;
    const { verification_run_id } = await seedSubmission(services, solver, sat, assignment);
    await call(author, "yank_verifier_implementation", {
      verifier_implementation_id: v1,
      reason_md: "broken",
    });
    expect(await executeVerificationRun(services, verification_run_id)).toEqual({
      kind: "finished",
      result: "inconclusive",
    });
    const stage = await stageOf(verification_run_id);
    expect(stage.evidence_md).toContain("no implementation whose conformance fixtures passed");
    expect(stage.evidence_md).toContain(`${v1} (version 1) was yanked: broken`);
  });

  it("refuses other users, unknown ids and an empty reason, naming the field", async () => {
    const implementation = await seedImplementation(db.sql, {
      contractId: sat.verifier_contract_id,
      stageKey: "sat_check",
      author: author.user.id,
    });
    // The Problem is private: a stranger cannot read its Contract, so the id names nothing for them.
    const bySolver = await call(stranger, "yank_verifier_implementation", {
      verifier_implementation_id: implementation,
      reason_md: "mine now",
    });
    expect(bySolver.body).toMatchObject({ error: { code: "not_found" } });
    // A user who can read the Contract but did not publish it: not_yours.
    await db.sql`update problems set visibility = 'unlisted' where id = ${sat.problem_id}`;
    const byReader = await call(stranger, "yank_verifier_implementation", {
      verifier_implementation_id: implementation,
      reason_md: "mine now",
    });
    expect(byReader.body).toMatchObject({ error: { code: "not_yours" } });
    const unknown = await call(author, "yank_verifier_implementation", {
      verifier_implementation_id: "vfi_0000000000",
      reason_md: "x",
    });
    expect(unknown.body).toMatchObject({ error: { code: "not_found" } });
    const empty = await call(author, "yank_verifier_implementation", {
      verifier_implementation_id: implementation,
      reason_md: "",
    });
    expect(empty.body).toMatchObject({ error: { code: "invalid_input" } });
    expect(JSON.stringify(empty.body)).toContain("reason_md");
    const [row] = await db.sql`select yanked_at from verifier_implementations where id = ${implementation}`;
    expect(row!.yanked_at).toBeNull();
  });

  it("yanks a review protocol once; it stays readable and its pins keep resolving", async () => {
    const protocolId = await seedProtocol(db.sql, author.user.id, "two-readers", { title: "Two readers" });
    const byStranger = await call(stranger, "yank_review_protocol", {
      review_protocol_id: protocolId,
      reason_md: "no",
    });
    expect(byStranger.body).toMatchObject({ error: { code: "not_found" } });
    const yanked = await call(author, "yank_review_protocol", {
      review_protocol_id: protocolId,
      reason_md: "its rubric rewards length",
    });
    expect(yanked).toMatchObject({
      isError: false,
      body: {
        review_protocol_id: protocolId,
        yank: { yanked_by_user_id: author.user.id, reason_md: "its rubric rewards length" },
      },
    });
    const read = await call(author, "get_review_protocol", { review_protocol_id: protocolId });
    expect(read.body.review_protocol).toMatchObject({
      id: protocolId,
      yanked_at: yanked.body.yank.yanked_at,
    });
    // The canonical record has no additional properties: the reason stays with the yank.
    expect(Object.keys(read.body.review_protocol).sort()).toEqual([
      "content_hash",
      "created_at",
      "document",
      "id",
      "publisher_user_id",
      "slug",
      "yanked_at",
    ]);
    const again = await call(admin, "yank_review_protocol", {
      review_protocol_id: protocolId,
      reason_md: "x",
    });
    expect(again.body).toMatchObject({ error: { code: "already_yanked" } });
  });

  it("a package pinning a yanked protocol still validates and publishes, with a yanked_review_protocol note", async () => {
    const published = await publishFiles(services, author, fixturePackage("valid-review"));
    const protocolId = published.review_protocol_ids[0]!;
    await call(author, "yank_review_protocol", { review_protocol_id: protocolId, reason_md: "superseded" });
    const { "review-protocol.json": _local, ...rest } = editJson(
      fixturePackage("valid-review"),
      "verifier-contract.json",
      (contract) => {
        (contract.stages as Array<Record<string, unknown>>)[0]!.review_protocol_id = protocolId;
      },
    );
    const pinning = editJson(rest, "problem.json", (problem) => {
      problem.slug = "pins-a-yanked-protocol";
    });
    const validation = await uploadAndValidate(services, author, pinning);
    expect(validation.valid).toBe(true);
    expect(validation.notes).toContainEqual({
      file: "verifier-contract.json",
      path: "/stages/0/review_protocol_id",
      code: "yanked_review_protocol",
      message: expect.stringContaining(`review protocol ${protocolId} was yanked at`),
    });
    const again = await publishFiles(services, author, pinning);
    const [revision] = await db.sql<{ document: { stages: Array<{ review_protocol_id: string }> } }[]>`
      select vc.document from problem_revisions pr join verifier_contracts vc on vc.id = pr.verifier_contract_id
      where pr.id = ${again.problems[0]!.problem_revision_id}`;
    expect(revision!.document.stages[0]!.review_protocol_id).toBe(protocolId);
  });
});
