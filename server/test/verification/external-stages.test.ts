import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import {
  attestExternalStage,
  PARTNER_EVIDENCE_MAX_BYTES,
} from "../../src/verification/attest-external-stage.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { readStageEvidence, readStageEvidenceFile } from "../../src/verification/read-stage-log.ts";
import { sweepAttestationDeadlines } from "../../src/verification/sweep-attestation-deadlines.ts";
import { viewerOf } from "../../src/visibility/viewer.ts";
import { type Files, fixturePackage, newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { runOperatorCommand } from "../support/run-operator-command.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "./support/verification-harness.ts";

const HASH = `sha256:${"ab".repeat(32)}`;

/** valid-builtin-sat with a second stage the partner system "Acme Lab" attests. */
function withExternalStage(): Files {
  const files = fixturePackage("valid-builtin-sat");
  const contract = JSON.parse(Buffer.from(files["verifier-contract.json"]!).toString());
  contract.stages.push({
    key: "partner_check",
    kind: "external",
    title: "Partner attestation",
    acceptance: "Acme Lab reproduces the assignment on its own solver.",
    rule_owner: "partner",
    external_system: "Acme Lab",
  });
  const problem = JSON.parse(Buffer.from(files["problem.json"]!).toString());
  problem.slug = "sat-attested";
  return {
    ...files,
    "verifier-contract.json": JSON.stringify(contract),
    "problem.json": JSON.stringify(problem),
  };
}

/**
 * External stages over MCP (spec 2.4 mechanism.external, 2.5 external_system): an operator
 * registers the partner system and its attesters; a run reaching the stage waits (running, its
 * evidence saying until when) until an attester attests once; the deadline ends it inconclusive.
 */
describeWithDatabase("external stages", () => {
  const db = useTestDatabase();
  let now = new Date();
  let services: Services;
  let app: RunningApp;
  let author: Principal;
  let solver: Principal;
  let operator: Principal;
  let partner: Principal;
  let stranger: Principal;
  let problem: PublishedProblem;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => now });
    app = await startApp(services);
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    operator = await newUser(db.sql, { admin: true });
    partner = await newUser(db.sql);
    stranger = await newUser(db.sql);
    problem = await publishProblem(services, author, withExternalStage());
    await passConformance(db.sql, problem.verifier_contract_id);
    await db.sql`update problems set visibility = 'unlisted' where id = ${problem.problem_id}`;
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
  async function waitingRun(): Promise<string> {
    const { verification_run_id } = await seedSubmission(services, solver, problem, [
      { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0\n" },
    ]);
    expect(await executeVerificationRun(services, verification_run_id)).toMatchObject({
      kind: "awaiting_attestation",
      system: "Acme Lab",
    });
    return verification_run_id;
  }
  const attestation = (runId: string) => ({
    verification_run_id: runId,
    stage_key: "partner_check",
    result: "verified",
    reference: "ACME-2026-0042",
    evidence_hash: HASH,
    evidence_md: "Reproduced on Acme's solver.",
  });

  it("an operator registers the system and its attesters; others may not", async () => {
    const refused = await call(author, "register_external_system", {
      system: "Acme Lab",
      attestation_hours: 24,
      attesters: [partner.user.handle],
    });
    expect(refused.body).toMatchObject({ error: { code: "forbidden" } });
    const unknown = await call(operator, "register_external_system", {
      system: "Acme Lab",
      attestation_hours: 24,
      attesters: ["nobody-here"],
    });
    expect(unknown.body).toMatchObject({ error: { code: "invalid_input", field: "attesters" } });
    const registered = await call(operator, "register_external_system", {
      system: "Acme Lab",
      attestation_hours: 24,
      attesters: [partner.user.handle],
    });
    expect(registered.body.external_system).toMatchObject({
      system: "Acme Lab",
      attestation_hours: 24,
      registered_by_user_id: operator.user.id,
      attesters: [
        { user_id: partner.user.id, handle: partner.user.handle, added_by_user_id: operator.user.id },
      ],
    });
  });

  it("a run waits at the stage until the partner attests once, then finishes with the attested result", async () => {
    const runId = await waitingRun();
    const read = (await call(solver, "get_verification", { verification_run_id: runId })).body;
    const waiting = read.verification;
    expect(waiting.status).toBe("running");
    // Nothing is attested yet, so the stage has no mechanism: it waits beside the record.
    expect(waiting.stage_results.map((s: { stage_key: string }) => s.stage_key)).not.toContain(
      "partner_check",
    );
    const due = new Date(now.getTime() + 24 * 3_600_000).toISOString();
    expect(read.waiting_stages).toEqual([
      {
        stage_key: "partner_check",
        kind: "external",
        status: "running",
        evidence_md: `waiting: for an attestation from Acme Lab by ${due} (attest_external_stage)`,
      },
    ]);
    // Executed again (a sweep, a restart), it still waits and counts no restart.
    expect(await executeVerificationRun(services, runId)).toMatchObject({ kind: "awaiting_attestation" });

    for (const who of [stranger, solver, operator]) {
      expect((await call(who, "attest_external_stage", attestation(runId))).body).toMatchObject({
        error: { code: "not_found" },
      });
    }
    const bad = await call(partner, "attest_external_stage", { ...attestation(runId), result: "error" });
    expect(bad.body).toMatchObject({ error: { code: "invalid_input" } });
    expect(JSON.stringify(bad.body)).toContain("result");

    now = new Date(now.getTime() + 60_000);
    const attested = await call(partner, "attest_external_stage", attestation(runId));
    expect(attested.isError).toBe(false);
    const external = {
      system: "Acme Lab",
      reference: "ACME-2026-0042",
      rule_owner: "partner",
      evidence_hash: HASH,
      attested_by_user_id: partner.user.id,
      attested_at: now.toISOString(),
    };
    expect(attested.body).toEqual({
      verification_run_id: runId,
      stage_key: "partner_check",
      result: "verified",
      mechanism: { sandbox: null, review: null, external },
    });
    const again = await call(partner, "attest_external_stage", { ...attestation(runId), result: "refuted" });
    expect(again.body).toMatchObject({ error: { code: "already_attested", attestation: external } });

    expect(await executeVerificationRun(services, runId)).toEqual({ kind: "finished", result: "verified" });
    const run = (await call(solver, "get_verification", { verification_run_id: runId })).body.verification;
    expect(run).toMatchObject({ status: "finished", result: "verified" });
    expect(run.stage_results[1]).toMatchObject({
      status: "finished",
      result: "verified",
      evidence_md: "Reproduced on Acme's solver.",
      mechanism: { sandbox: null, review: null, external },
    });
  });

  it("a partner attaches its evidence bytes, bounded; they are read under the run's rules", async () => {
    const runId = await waitingRun();
    const bytes = Buffer.from("Acme Lab reproduction report: satisfied.\n");
    const hash = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    const evidence = { filename: "report.txt", content_base64: bytes.toString("base64") };
    const wrongHash = await call(partner, "attest_external_stage", { ...attestation(runId), evidence });
    expect(wrongHash.body).toMatchObject({ error: { code: "invalid_input", field: "evidence_hash" } });
    const tooLarge = attestExternalStage(services, viewerOf(partner), {
      ...attestation(runId),
      result: "verified",
      evidence_hash: null,
      evidence: { filename: "huge.bin", bytes: new Uint8Array(PARTNER_EVIDENCE_MAX_BYTES + 1) },
    });
    await expect(tooLarge).rejects.toMatchObject({ code: "invalid_input" });
    await expect(tooLarge).rejects.toThrow(/evidence\.content_base64/);

    const attested = await call(partner, "attest_external_stage", {
      ...attestation(runId),
      evidence_hash: null,
      evidence,
    });
    expect(attested.isError).toBe(false);
    expect(attested.body.mechanism.external.evidence_hash).toBe(hash);

    const read = await readStageEvidenceFile(
      services,
      viewerOf(solver),
      runId,
      "partner_check",
      "report.txt",
    );
    expect(read.bytes.equals(bytes)).toBe(true);
    expect(read.file).toMatchObject({ path: "report.txt", content_hash: hash, size_bytes: bytes.length });
    const listing = await readStageEvidence(services, viewerOf(solver), runId, "partner_check");
    expect(listing).toMatchObject({ evidence_hash: hash, files: [{ path: "report.txt" }] });
    await expect(
      readStageEvidenceFile(services, viewerOf(stranger), runId, "partner_check", "report.txt"),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("the deadline ends the stage inconclusive and closes it to attestations", async () => {
    const runId = await waitingRun();
    expect(await sweepAttestationDeadlines(services)).toEqual([]);
    now = new Date(now.getTime() + 24 * 3_600_000);
    const late = await call(partner, "attest_external_stage", attestation(runId));
    expect(late.body).toMatchObject({ error: { code: "attestation_closed" } });
    expect(await sweepAttestationDeadlines(services)).toEqual([runId]);
    expect(await executeVerificationRun(services, runId)).toEqual({
      kind: "finished",
      result: "inconclusive",
    });
    const run = (await call(solver, "get_verification", { verification_run_id: runId })).body.verification;
    // Never attested, the stage ran no mechanism: the record lists the sandbox stage and says why.
    expect(run).toMatchObject({ status: "finished", result: "inconclusive" });
    expect(run.stage_results.map((s: { stage_key: string }) => s.stage_key)).toEqual(["sat_check"]);
    expect(run.evidence_md).toContain("Acme Lab attested nothing by the deadline");
    const closed = await call(partner, "attest_external_stage", attestation(runId));
    expect(closed.body).toMatchObject({ error: { code: "attestation_closed" } });
  });

  it("an operator registers a system with svc-server too, recorded as an operator (null actor)", async () => {
    const env = { DATABASE_URL: db.url };
    const args = [
      "external-system",
      "register",
      "Beta Lab",
      "--hours",
      "2",
      "--attester",
      partner.user.handle,
    ];
    const registered = await runOperatorCommand(args, env);
    expect(registered.code).toBe(0);
    expect(JSON.parse(registered.stdout)).toMatchObject({
      external_system: {
        system: "Beta Lab",
        attestation_hours: 2,
        registered_by_user_id: null,
        attesters: [{ user_id: partner.user.id, added_by_user_id: null }],
      },
    });
    expect(
      (await runOperatorCommand(["external-system", "register", "Beta Lab", "--hours", "0"], env)).code,
    ).toBe(2);
    const unknown = await runOperatorCommand(
      ["external-system", "register", "Beta Lab", "--hours", "3", "--attester", "nobody-here"],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"code":"invalid_input"');
  });

  it("an attester an operator removed with svc-server attests nothing more for the system", async () => {
    now = new Date();
    const runId = await waitingRun();
    const removed = await runOperatorCommand(
      ["external-system", "remove-attester", "Acme Lab", partner.user.handle, "--reason", "contract ended"],
      { DATABASE_URL: db.url },
    );
    expect(removed.code).toBe(0);
    const refused = await call(partner, "attest_external_stage", attestation(runId));
    expect(refused.isError).toBe(true);
    expect(refused.body).toMatchObject({ error: { code: "not_found" } });
  });
});
