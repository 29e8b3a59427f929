import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { type SeededUser, seedProblem, seedSkillVersion, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

/** The discovery tools and resources through the real /mcp endpoint, on every client line. */
describeWithDatabase.each(clientLines)("discovery over /mcp ($name)", ({ connect }) => {
  const db = useTestDatabase();
  let services: Services;
  let running: RunningApp;
  let client: TestClient;
  let owner: SeededUser;
  let skill: string;

  beforeAll(async () => {
    services = testServices(db.sql);
    owner = await seedUser(db.sql, "mcp-owner", { capabilities: ["trusted_author"] });
    const reader = await seedUser(db.sql, "mcp-reader", { scopes: ["read"] });
    skill = await seedSkillVersion(services, {
      publisher: owner.id,
      name: "tides",
      files: { "SKILL.md": "# Tides\n" },
    });
    await seedProblem(services, {
      owner: owner.id,
      slug: "tide-table",
      visibility: "listed",
      revision: {
        statement: "Predict the tide table for the estuary.",
        skillRefs: [{ skill_version_id: skill, requirement: "required" }],
      },
    });
    running = await startApp(services);
    client = await connect(running.url, reader.token, "?toolsets=all");
  });

  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  it("lists the discovery tools as read-only, and the work edits as writes", async () => {
    const tools = new Map((await client.listTools()).map((tool) => [tool.name, tool]));
    for (const name of [
      "search_problems",
      "get_problem",
      "get_campaign",
      "pick_problem",
      "get_work_management",
    ]) {
      expect(tools.get(name)?.annotations?.readOnlyHint).toBe(true);
    }
    expect(tools.get("set_work_visibility")?.annotations?.readOnlyHint).not.toBe(true);
  });

  it("searches and reads a problem as one JSON envelope", async () => {
    const found = envelopeOf(await client.callTool("search_problems", { query: "estuary" }));
    expect((found.problems as Array<{ slug: string }>).map((p) => p.slug)).toEqual(["tide-table"]);
    const envelope = envelopeOf(
      await client.callTool("get_problem", { problem: "tide-table", working_attempt_id: "att_0123456789" }),
    );
    expect(envelope.problem).toMatchObject({ slug: "tide-table" });
    expect(envelope.skill_resources).toHaveLength(1);
  });

  it("reports refusals as tool errors with the catalogue's codes", async () => {
    const missing = await client.callTool("get_problem", { problem: "no-such-problem" });
    expect(missing.isError).toBe(true);
    expect(JSON.parse(missing.content[0]!.text!).error.code).toBe("not_found");
    const tooMany = await client.callTool("search_problems", { limit: 500 });
    expect(JSON.parse(tooMany.content[0]!.text!).error).toMatchObject({
      code: "invalid_input",
      field: "limit",
    });
    const readOnly = await client.callTool("set_work_visibility", {
      work: { problem: "tide-table" },
      visibility: "private",
      expected_snapshot: "x",
    });
    expect(JSON.parse(readOnly.content[0]!.text!).error.code).toBe("forbidden");
  });

  it("reads skill files and the authoring skill as resources, and lists recent SKILL.md files", async () => {
    const [entry] = await client.readResource(`svc://skill-versions/${skill}/SKILL.md`);
    expect(entry).toMatchObject({ mimeType: "text/markdown", text: "# Tides\n" });
    const [manifest] = await client.readResource(`svc://skill-versions/${skill}/`);
    expect(JSON.parse(manifest!.text!).files).toHaveLength(1);
    const [guide] = await client.readResource("svc://authoring/skill/latest");
    expect(guide!.text).toContain("name: svc-authoring");
    const listed = (await client.listResources()).map((r) => r.uri);
    expect(listed).toEqual(
      expect.arrayContaining([`svc://skill-versions/${skill}/SKILL.md`, "svc://authoring/skill/latest"]),
    );
  });
});
