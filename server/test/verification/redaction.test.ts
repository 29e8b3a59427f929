import { bwrapRuns } from "@svc/app";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  newAuthor,
  newUser,
} from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "./support/verification-harness.ts";

const hasBwrap = bwrapRuns();
if (!hasBwrap && process.env.CI === "true")
  throw new Error("CI=true but bubblewrap does not run: the log redaction suite must run");

/** valid-script whose checker prints a secret and the answer it read into its log. */
function leaksASecret(): Files {
  const base = fixturePackage("valid-script");
  const checker = Buffer.from(base["checker.py"]!).toString("utf8");
  const leaking = checker.replace(
    '    text = pathlib.Path(answer["path"]).read_text().strip()\n',
    '    text = pathlib.Path(answer["path"]).read_text().strip()\n    print("API_KEY=hunter2 checking", text)\n',
  );
  return editJson({ ...base, "checker.py": leaking }, "problem.json", (problem) => {
    problem.slug = "leaks-a-secret";
  });
}

/**
 * Log redaction over MCP (spec 2.4 `log.redaction`): operators only, once per log, for one of
 * three reasons; the original hash and size are kept in the record, the bytes every read serves
 * are replaced, the original bytes leave the blob store once no record holds them, and the run's
 * result, evidence and inputs are untouched.
 */
(hasBwrap ? describeWithDatabase : describe.skip)("redacting a stage log", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let author: Principal;
  let solver: Principal;
  let operator: Principal;
  let problem: PublishedProblem;
  const tokens = new Map<Principal, string>();
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    operator = await newUser(db.sql, { admin: true });
    problem = await publishProblem(services, author, leaksASecret());
    await passConformance(db.sql, problem.verifier_contract_id);
    await db.sql`update problems set visibility = 'unlisted' where id = ${problem.problem_id}`;
    for (const who of [author, solver, operator]) {
      tokens.set(who, (await issueToken(db.sql, who.user.handle, ["read", "contribute"])).token);
    }
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function clientOf(who: Principal): Promise<TestClient> {
    const client = await clientLines[0].connect(app.url, tokens.get(who)!);
    clients.push(client);
    return client;
  }
  async function call(who: Principal, name: string, args: Record<string, unknown>) {
    const result = await (await clientOf(who)).callTool(name, args);
    return { isError: result.isError === true, body: envelopeOf(result) as Record<string, any> };
  }
  async function finishedRun(answer: string) {
    const seeded = await seedSubmission(services, solver, problem, [
      { role: "answer", filename: "answer.txt", media_type: "text/plain", content: answer },
    ]);
    expect(await executeVerificationRun(services, seeded.verification_run_id)).toMatchObject({
      kind: "finished",
    });
    const { body } = await call(solver, "get_verification", {
      verification_run_id: seeded.verification_run_id,
    });
    return body.verification;
  }

  it("replaces the bytes once, keeps the original hash and size, and every read shows the redaction", async () => {
    const run = await finishedRun("1234\n");
    const stage = run.stage_results[0];
    const original = stage.log;
    const [before] = await (await clientOf(solver)).readResource(original.resource_uri);
    expect(before!.text).toContain("API_KEY=hunter2");

    for (const who of [solver, author]) {
      const refused = await call(who, "redact_stage_log", {
        verification_run_id: run.id,
        stage_key: "check_answer",
        reason: "secret_material",
      });
      expect(refused.body).toMatchObject({ error: { code: "forbidden" } });
    }

    const redacted = await call(operator, "redact_stage_log", {
      verification_run_id: run.id,
      stage_key: "check_answer",
      reason: "secret_material",
    });
    expect(redacted.isError).toBe(false);
    expect(redacted.body).toMatchObject({
      verification_run_id: run.id,
      stage_key: "check_answer",
      log: {
        truncated: original.truncated,
        redaction: {
          redacted_by_user_id: operator.user.id,
          reason: "secret_material",
          original_content_hash: original.content_hash,
          original_size_bytes: original.size_bytes,
        },
      },
      original_bytes_removed: true,
      other_logs_with_same_bytes: [],
    });
    const log = redacted.body.log;
    expect(log.content_hash).not.toBe(original.content_hash);
    expect(await services.blobs.has(original.content_hash)).toBe(false);

    // get_verification shows the redaction; result, evidence, inputs and mechanism are untouched.
    const after = (await call(solver, "get_verification", { verification_run_id: run.id })).body.verification;
    expect(after.stage_results[0].log).toMatchObject({ ...log, resource_uri: original.resource_uri });
    expect(after).toMatchObject({
      result: run.result,
      evidence_md: run.evidence_md,
      inputs: run.inputs,
    });
    expect(after.stage_results[0]).toMatchObject({
      result: stage.result,
      evidence_md: stage.evidence_md,
      mechanism: stage.mechanism,
    });

    // The resource and the HTTP route serve the notice, naming the redaction.
    const [content] = await (await clientOf(solver)).readResource(original.resource_uri);
    expect(content!.text).not.toContain("hunter2");
    expect(content!.text).toContain("log redacted by an operator");
    expect(content!._meta).toMatchObject({ content_hash: log.content_hash, redaction: log.redaction });
    const http = await fetch(original.url, { headers: { authorization: `Bearer ${tokens.get(solver)}` } });
    expect(http.headers.get("x-svc-content-hash")).toBe(log.content_hash);
    expect(http.headers.get("x-svc-log-redacted")).toBe("secret_material");
    expect(await http.text()).not.toContain("hunter2");
    const page = await fetch(`${app.url}/verifications/${run.id}`, {
      headers: { authorization: `Bearer ${tokens.get(solver)}` },
    });
    expect(await page.text()).toContain('data-testid="redaction"');

    // Append-only: a second redaction is refused with the first; the database refuses any other change.
    const again = await call(operator, "redact_stage_log", {
      verification_run_id: run.id,
      stage_key: "check_answer",
      reason: "legal_requirement",
    });
    expect(again.body).toMatchObject({
      error: { code: "already_redacted", redaction: { reason: "secret_material" } },
    });
    await expect(
      db.sql`update verification_stage_results set log = log || '{"redaction": null}'
        where verification_run_id = ${run.id}`,
    ).rejects.toThrow(/already redacted/);
  });

  it("keeps bytes another log still holds until that log is redacted too", async () => {
    const first = await finishedRun("1235\n");
    const second = await finishedRun("1235\n");
    const hash = first.stage_results[0].log.content_hash;
    expect(second.stage_results[0].log.content_hash).toBe(hash);
    const one = await call(operator, "redact_stage_log", {
      verification_run_id: first.id,
      stage_key: "check_answer",
      reason: "personal_data",
    });
    expect(one.body).toMatchObject({
      original_bytes_removed: false,
      other_logs_with_same_bytes: [{ verification_run_id: second.id, stage_key: "check_answer" }],
    });
    expect(await services.blobs.has(hash)).toBe(true);
    const two = await call(operator, "redact_stage_log", {
      verification_run_id: second.id,
      stage_key: "check_answer",
      reason: "personal_data",
    });
    expect(two.body).toMatchObject({ original_bytes_removed: true, other_logs_with_same_bytes: [] });
    expect(await services.blobs.has(hash)).toBe(false);
  });

  it("names the field of bad input, and a stage without a log is not found", async () => {
    const run = await finishedRun("1236\n");
    const badReason = await call(operator, "redact_stage_log", {
      verification_run_id: run.id,
      stage_key: "check_answer",
      reason: "embarrassing",
    });
    expect(badReason.body).toMatchObject({ error: { code: "invalid_input" } });
    expect(JSON.stringify(badReason.body)).toContain("reason");
    const noStage = await call(operator, "redact_stage_log", {
      verification_run_id: run.id,
      stage_key: "no_such_stage",
      reason: "personal_data",
    });
    expect(noStage.body).toMatchObject({ error: { code: "not_found" } });
  });
});
