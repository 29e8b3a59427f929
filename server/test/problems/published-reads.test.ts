import { sha256 } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import type { ProblemEnvelope } from "../../src/discovery/get-problem.ts";
import { type App, buildApp } from "../../src/edges/cli/build-app.ts";
import { type Files, fixturePackage, publishFiles } from "../authoring/support/authoring-harness.ts";
import type { SeededUser } from "../support/seed-records.ts";
import { seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { callTool, callToolAs, TEST_BASE_URL } from "./call-tool.ts";

/**
 * End to end through publication: a package published by the authoring flow is read back
 * through the discovery tools and the signed links, byte for byte.
 */
describeWithDatabase("reading what publication created", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: App;
  let author: SeededUser;
  let reader: SeededUser;
  let files: Files;

  beforeAll(async () => {
    services = testServices(db.sql, { baseUrl: TEST_BASE_URL });
    app = buildApp(services);
    author = await seedUser(db.sql, "published-author", { capabilities: ["trusted_author"] });
    reader = await seedUser(db.sql, "published-reader", { scopes: ["read"] });
    files = fixturePackage("valid-skill");
    await publishFiles(services, author.principal, files);
  });

  afterAll(async () => {
    await app.close();
  });

  it("keeps new work private until its owner lists it", async () => {
    await expect(callTool(services, reader, "get_problem", { problem: "small-sat" })).rejects.toMatchObject({
      code: "not_found",
    });
    const { snapshot } = await callTool(services, author, "get_work_management", {
      work: { problem: "small-sat" },
    });
    await callTool(services, author, "set_work_visibility", {
      work: { problem: "small-sat" },
      visibility: "listed",
      expected_snapshot: snapshot,
    });
    const found = await callTool(services, reader, "search_problems", { query: "assignment satisfying" });
    expect((found.problems as Array<{ slug: string }>).map((p) => p.slug)).toEqual(["small-sat"]);
  });

  it("serves the published statement, skill and reference bytes exactly as packaged", async () => {
    const envelope = await callToolAs<ProblemEnvelope>(services, reader, "get_problem", {
      problem: "small-sat",
    });
    expect(envelope.revision.statement_md).toBe(Buffer.from(files["statement.md"]!).toString("utf8"));
    const [skill] = envelope.skill_resources;
    expect(skill!.files.map((f) => f.path)).toEqual(["SKILL.md"]);
    const skillBytes = await app.inject({ method: "GET", url: new URL(skill!.download_url!).pathname });
    expect(skillBytes.rawPayload.equals(Buffer.from(files["skills/sat-basics/SKILL.md"]!))).toBe(true);
    expect(skillBytes.headers["x-svc-content-hash"]).toBe(skill!.content_hash);

    const [instance] = envelope.reference_resources;
    expect(instance).toMatchObject({
      key: "instance",
      content_hash: sha256(files["reference/instance.cnf"]!),
    });
    const referenceBytes = await app.inject({
      method: "GET",
      url: new URL(instance!.download_url!).pathname,
    });
    expect(referenceBytes.statusCode).toBe(200);
    expect(referenceBytes.rawPayload.equals(Buffer.from(files["reference/instance.cnf"]!))).toBe(true);

    const contract = await callTool(services, reader, "get_verifier_contract", {
      verifier_contract_id: envelope.revision.verifier_contract_id,
    });
    expect(contract.verifier_contract).toMatchObject({ id: envelope.revision.verifier_contract_id });
  });
});
