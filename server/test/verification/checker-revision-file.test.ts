import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import {
  editJson,
  fixturePackage,
  newAuthor,
  newUser,
  uploadAndValidate,
} from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { type PublishedProblem, passConformance, publishProblem } from "./support/verification-harness.ts";

const CHECKER = readFileSync(
  new URL("../../../app/test/fixtures/lint/valid-script/checker.py", import.meta.url),
);

/**
 * The revision file checkers/<stage_key>/<filename> (spec 4.1): a script checker's program read
 * through the revision like its reference inputs, over MCP and HTTP, the same bytes as
 * /api/verifier-implementations/{id}/program; only the stage's current implementation is one.
 */
describeWithDatabase("a checker program as a revision file", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let author: Principal;
  let solver: Principal;
  let script: PublishedProblem;
  let builtin: PublishedProblem;
  const tokens = new Map<Principal, string>();
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    script = await publishProblem(services, author, "valid-script");
    builtin = await publishProblem(services, author, "valid-builtin-sat");
    for (const problem of [script, builtin]) await passConformance(db.sql, problem.verifier_contract_id);
    await db.sql`update problems set visibility = 'unlisted' where id = ${script.problem_id}`;
    for (const who of [author, solver]) {
      tokens.set(who, (await issueToken(db.sql, who.user.handle, ["read", "contribute"])).token);
    }
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function clientOf(who: Principal): Promise<TestClient> {
    const client = await clientLines[0].connect(app.url, tokens.get(who)!);
    clients.push(client);
    return client;
  }
  const get = (who: Principal, path: string) =>
    fetch(`${app.url}${path}`, {
      headers: { authorization: `Bearer ${tokens.get(who)}`, accept: "application/json" },
    });
  const fileUri = (problem: PublishedProblem, stage: string, filename: string) =>
    `svc://problem-revisions/${problem.problem_revision_id}/checkers/${stage}/${filename}`;

  it("serves the stage's program over MCP and HTTP, the same bytes as the implementation's program route", async () => {
    const [implementationId] = script.implementation_ids;
    const program = await get(solver, `/api/verifier-implementations/${implementationId}/program`);
    expect(program.status).toBe(200);
    const hash = program.headers.get("x-svc-content-hash");
    expect(Buffer.from(await program.arrayBuffer()).equals(CHECKER)).toBe(true);

    const [content] = await (await clientOf(solver)).readResource(
      fileUri(script, "check_answer", "checker.py"),
    );
    expect(content!.text).toBe(CHECKER.toString("utf8"));
    expect(content!._meta).toMatchObject({
      content_hash: hash,
      size_bytes: CHECKER.length,
      verifier_implementation_id: implementationId,
    });

    const file = await get(
      solver,
      `/api/problem-revisions/${script.problem_revision_id}/checkers/check_answer/checker.py`,
    );
    expect(file.status).toBe(200);
    expect(file.headers.get("x-svc-content-hash")).toBe(hash);
    expect(file.headers.get("x-svc-verifier-implementation-id")).toBe(implementationId);
    expect(Buffer.from(await file.arrayBuffer()).equals(CHECKER)).toBe(true);
  });

  it("is not found, naming why, for another filename, a builtin stage, a private problem or a yanked program", async () => {
    const wrong = await get(
      solver,
      `/api/problem-revisions/${script.problem_revision_id}/checkers/check_answer/main.py`,
    );
    expect(wrong.status).toBe(404);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toContain(
      "the stage's program is checkers/check_answer/checker.py",
    );
    const noStage = await get(
      solver,
      `/api/problem-revisions/${script.problem_revision_id}/checkers/nothing/checker.py`,
    );
    expect(noStage.status).toBe(404);
    const path = `/api/problem-revisions/${builtin.problem_revision_id}/checkers/sat_check/checker.py`;
    const ofBuiltin = await get(author, path);
    expect(((await ofBuiltin.json()) as { error: { message: string } }).error.message).toContain(
      "runs an image or a builtin",
    );
    // The builtin problem is private: the solver cannot tell it exists.
    const privateRead = await get(solver, path);
    expect(privateRead.status).toBe(404);
    expect(((await privateRead.json()) as { error: { message: string } }).error.message).toContain(
      "no such revision you can read",
    );
    const badName = await get(
      solver,
      `/api/problem-revisions/${script.problem_revision_id}/checkers/Check/checker.py`,
    );
    expect(badName.status).toBe(400);
    expect(await badName.text()).toContain("stage");

    const yanked = await (await clientOf(author)).callTool("yank_verifier_implementation", {
      verifier_implementation_id: script.implementation_ids[0],
      reason_md: "leaks the target",
    });
    expect(yanked.isError).toBeFalsy();
    await expect(
      (await clientOf(solver)).readResource(fileUri(script, "check_answer", "checker.py")),
    ).rejects.toThrow(/has no current implementation/);
    expect(envelopeOf(yanked)).toMatchObject({ current_implementation_id: null });
  });

  it("publishes an implementation's source as its package states it, and refuses a loose one naming the field", async () => {
    const source = {
      source_uri: "https://github.com/ada/integer-root-checker",
      source_revision: "0123456789abcdef0123456789abcdef01234567",
      license: "Apache-2.0",
    };
    const withSource = (stated: Record<string, unknown>) => {
      const files = editJson(fixturePackage("valid-script"), "verifier-contract.json", (contract) => {
        (contract.stages as Array<Record<string, unknown>>)[0]!.implementation = null;
      });
      return editJson(
        {
          ...files,
          "verifier-implementation.json": JSON.stringify({
            implementations: [{ stage_key: "check_answer", implementation: "./checker.py", source: stated }],
          }),
        },
        "problem.json",
        (problem) => {
          problem.slug = "sourced-root";
        },
      );
    };
    const loose = await uploadAndValidate(
      services,
      author,
      withSource({ ...source, source_revision: "v1.2" }),
    );
    expect(loose.valid).toBe(false);
    expect(loose.errors).toEqual([
      expect.objectContaining({
        file: "verifier-implementation.json",
        path: "/implementations/0/source/source_revision",
        code: "schema_violation",
        message: expect.stringContaining("exact commit"),
      }),
    ]);

    const published = await publishProblem(services, author, withSource(source));
    const [row] =
      await db.sql`select source from verifier_implementations where id = ${published.implementation_ids[0]!}`;
    expect(row!.source).toEqual(source);
    const { body } = await (async () => {
      const result = await (await clientOf(author)).callTool("get_verifier_contract", {
        verifier_contract_id: published.verifier_contract_id,
      });
      return { body: envelopeOf(result) as { implementations: Array<{ id: string; source: unknown }> } };
    })();
    expect(body.implementations.find((i) => i.id === published.implementation_ids[0])?.source).toEqual(
      source,
    );
    // Without a stated source, the record has the three keys, null.
    const [plain] =
      await db.sql`select source from verifier_implementations where id = ${script.implementation_ids[0]!}`;
    expect(plain!.source).toEqual({ source_uri: null, source_revision: null, license: null });
  });
});
