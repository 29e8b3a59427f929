import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runImplementationConformance } from "../../src/conformance/run-implementation-conformance.ts";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import { newAuthor } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { seedImplementation } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { type PublishedProblem, publishProblem } from "./support/verification-harness.ts";

const runFile = promisify(execFile);
const SVC = fileURLToPath(new URL("../../../app/bin/svc.js", import.meta.url));

/**
 * Differential conformance (issue 19 item 5) over MCP: a new implementation of a stage with a
 * current passed one is also compared with it on the fixtures; the conformance record names the
 * current one and every fixture where the two differ is shown by get_sandbox_image_status and
 * get_verifier_contract. Builtins only, so no engine is needed: the JSON Schema checker put on the
 * SAT stage is the "new implementation" that disagrees.
 */
describeWithDatabase("differential conformance", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let author: Principal;
  let sat: PublishedProblem;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    author = await newAuthor(db.sql);
    sat = await publishProblem(services, author, "valid-builtin-sat");
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function call(who: Principal, name: string, args: Record<string, unknown>) {
    const { token } = await issueToken(db.sql, who.user.handle, ["read"]);
    const client = await clientLines[0].connect(app.url, token);
    clients.push(client);
    const result = await client.callTool(name, args);
    return { isError: result.isError === true, body: envelopeOf(result) as Record<string, any> };
  }

  it("compares a new implementation with the current one and shows the fixtures they disagree on", async () => {
    const contractId = sat.verifier_contract_id;
    const [v1] = sat.implementation_ids;
    // The first implementation has nothing to be compared with.
    expect(await runImplementationConformance(services, v1!)).toEqual({ kind: "checked", status: "passed" });

    // A second version that disagrees on both fixtures: it fails, and records what it changed.
    const v2 = await seedImplementation(db.sql, {
      contractId,
      stageKey: "sat_check",
      author: author.user.id,
      status: "pending",
      imageRef: "svc-builtin/json-schema-check:1",
    });
    expect(await runImplementationConformance(services, v2)).toEqual({ kind: "checked", status: "failed" });
    // A third that behaves like the first: it passes, compared with v1 (v2 failed, so v1 is current).
    const v3 = await seedImplementation(db.sql, {
      contractId,
      stageKey: "sat_check",
      author: author.user.id,
      status: "pending",
    });
    expect(await runImplementationConformance(services, v3)).toEqual({ kind: "checked", status: "passed" });

    const status = await call(author, "get_sandbox_image_status", {
      image: "svc-builtin/json-schema-check:1",
    });
    expect(status.isError).toBe(false);
    expect(status.body.implementations).toHaveLength(1);
    const shown = status.body.implementations[0];
    expect(shown).toMatchObject({ verifier_implementation_id: v2, conformance: "failed" });
    expect(shown.differential.differential_against_implementation_id).toBe(v1);
    expect(shown.differential.disagreements.map((d: any) => d.fixture_key)).toEqual([
      "falsifying",
      "satisfying",
    ]);
    for (const d of shown.differential.disagreements) {
      expect(d.result).not.toBe(d.against_result);
    }
    expect(shown.differential.disagreements.find((d: any) => d.fixture_key === "satisfying")).toMatchObject({
      against_result: "verified",
    });
    expect(shown.differential.disagreements.find((d: any) => d.fixture_key === "falsifying")).toMatchObject({
      against_result: "refuted",
    });

    const contract = await call(author, "get_verifier_contract", { verifier_contract_id: contractId });
    expect(contract.isError).toBe(false);
    const byId = new Map<string, any>(contract.body.implementations.map((i: any) => [i.id, i]));
    expect(byId.get(v1!).conformance).toMatchObject({
      status: "passed",
      differential_against_implementation_id: null,
      disagreements: [],
    });
    expect(byId.get(v2).conformance).toMatchObject({
      status: "failed",
      differential_against_implementation_id: v1,
      disagreements: shown.differential.disagreements,
    });
    expect(byId.get(v3).conformance).toMatchObject({
      status: "passed",
      differential_against_implementation_id: v1,
      disagreements: [],
    });
    expect(byId.get(v3).current).toBe(true);

    // svc verifier status prints it for a person.
    const { token } = await issueToken(db.sql, author.user.handle, ["read"]);
    // Asynchronous: the service answering it runs in this process.
    const status_cli = await runFile(
      process.execPath,
      [SVC, "verifier", "status", "svc-builtin/json-schema-check:1", "--server", app.url],
      {
        encoding: "utf8",
        env: { ...process.env, SVC_TOKEN: token, HOME: mkdtempSync(join(tmpdir(), "svc-home-")) },
      },
    );
    expect(status_cli.stderr).toBe("");
    expect(status_cli.stdout).toContain(`  ${v2} ${contractId}/sat_check conformance failed\n`);
    expect(status_cli.stdout).toContain(`    compared with ${v1}: 2 fixture(s) differ\n`);
    expect(status_cli.stdout).toMatch(/ {6}satisfying: \w+ here, verified there\n/);

    // The stored record says the same, and the disagreements cannot be rewritten.
    const [record] = await db.sql`select conformance from verifier_implementations where id = ${v2}`;
    expect(record!.conformance.differential_against_implementation_id).toBe(v1);
    await expect(
      db.sql`delete from conformance_disagreements where verifier_implementation_id = ${v2}`,
    ).rejects.toThrow();
  });
});
