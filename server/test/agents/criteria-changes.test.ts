import { afterAll, beforeAll, expect, it } from "vitest";
import { runImplementationConformance } from "../../src/conformance/run-implementation-conformance.ts";
import type { Services } from "../../src/core/services/services.ts";
import type { Principal } from "../../src/users/principal.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  newAuthor,
  publishFiles,
} from "../authoring/support/authoring-harness.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { type AgentClient, connectAgent } from "../events/support/agent-client.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

function scriptPackage(slug: string): Files {
  return editJson(fixturePackage("valid-script"), "problem.json", (p) => {
    p.slug = slug;
  });
}

/** A revise of a Problem under way writes a criteria change naming the changed parts and the affected Attempts. */
describeWithDatabase("criteria changes", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let author: Principal;
  const users: Record<string, SeededUser> = {};
  const agents: AgentClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    author = await newAuthor(db.sql);
    for (const handle of ["sol-cc", "ned-cc", "old-cc"])
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read", "contribute"] });
  }, 60_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await app?.close();
  });

  async function agentOf(handle: string) {
    const agent = await connectAgent(app.url, users[handle]!.token);
    agents.push(agent);
    return agent;
  }

  it("names the reconciliation's reason, the changed parts and the affected attempts, for their owners only", async () => {
    const first = await publishFiles(services, author, scriptPackage("revised-under-way"));
    const { problem_id: problemId, problem_revision_id: revision1 } = first.problems[0]!;
    await db.sql`update problems set visibility = 'unlisted' where id = ${problemId}`;
    const sol = await agentOf("sol-cc");
    const ned = await agentOf("ned-cc");
    const old = await agentOf("old-cc");
    const attempt = await sol.tool("start_attempt", { problem: "revised-under-way" });
    expect(attempt.isError).toBe(false);
    const ended = await old.tool("start_attempt", { problem: "revised-under-way" });
    expect(
      await old.tool("end_attempt", {
        attempt_id: ended.attempt.id,
        outcome: "gave_up",
        note_md: "Stopped.",
      }),
    ).toMatchObject({ isError: false });

    const files = scriptPackage("revised-under-way");
    files["statement.md"] =
      "# Integer square root\n\nFind the positive integer whose square is 1522756, in decimal.\n";
    const again = await publishFiles(services, author, files);
    const reason = again.validation.reconciliation!.problems[0]!.reason;
    expect(again.problems[0]).toMatchObject({ action: "revise", revision_number: 2 });
    const revision2 = again.problems[0]!.problem_revision_id;

    const listed = await sol.tool("list_criteria_changes", {});
    expect(listed).toMatchObject({ isError: false, next_cursor: null });
    expect(listed.criteria_changes).toEqual([
      {
        criteria_change_id: expect.stringMatching(/^crc_/),
        kind: "problem_revised",
        problem_id: problemId,
        problem_slug: "revised-under-way",
        from_revision: { id: revision1, number: 1 },
        to_revision: { id: revision2, number: 2 },
        reason,
        changed: ["statement"],
        affected_attempts: [{ attempt_id: attempt.attempt.id, problem_revision_id: revision1 }],
        created_at: expect.any(String),
      },
    ]);
    expect(reason).toBe("statement changed");
    const change = listed.criteria_changes[0];
    expect(
      await sol.tool("get_criteria_change", { criteria_change_id: change.criteria_change_id }),
    ).toMatchObject({
      criteria_change: change,
    });
    expect(await sol.tool("list_criteria_changes", { problem: "revised-under-way" })).toMatchObject({
      criteria_changes: [change],
    });

    // The event that wakes the solver's agents, and nobody else's.
    const { events } = await sol.method("events/list", { kinds: ["criteria.changed"] });
    expect(events).toEqual([
      expect.objectContaining({
        kind: "criteria.changed",
        data: {
          criteria_change_id: change.criteria_change_id,
          kind: "problem_revised",
          problem_id: problemId,
          to_revision_id: revision2,
          affected_attempt_ids: [attempt.attempt.id],
        },
      }),
    ]);
    for (const other of [ned, old]) {
      expect((await other.tool("list_criteria_changes", {})).criteria_changes).toEqual([]);
      expect(
        await other.tool("get_criteria_change", { criteria_change_id: change.criteria_change_id }),
      ).toMatchObject({
        isError: true,
        error: { code: "not_found" },
      });
      expect((await other.method("events/list", { kinds: ["criteria.changed"] })).events).toEqual([]);
    }
  }, 120_000);

  it("a stage's new current implementation is a criteria change for the users with attempts its contract checks", async () => {
    const sat = editJson(fixturePackage("valid-builtin-sat"), "problem.json", (p) => {
      p.slug = "checked-anew";
    });
    const published = await publishFiles(services, author, sat);
    const { problem_id: problemId, problem_revision_id: revisionId } = published.problems[0]!;
    await db.sql`update problems set visibility = 'unlisted' where id = ${problemId}`;
    const sol = await agentOf("sol-cc");
    const attempt = await sol.tool("start_attempt", { problem: "checked-anew" });
    expect(attempt.isError).toBe(false);
    const implementationId = published.verifier_implementation_ids[0]!;
    expect(await runImplementationConformance(services, implementationId)).toMatchObject({
      status: "passed",
    });

    const { criteria_changes } = await sol.tool("list_criteria_changes", { problem: "checked-anew" });
    expect(criteria_changes).toEqual([
      expect.objectContaining({
        kind: "implementation_current",
        problem_id: problemId,
        from_revision: null,
        to_revision: null,
        changed: [expect.stringMatching(/^stage:/)],
        affected_attempts: [{ attempt_id: attempt.attempt.id, problem_revision_id: revisionId }],
      }),
    ]);
    expect(criteria_changes[0].reason).toContain(implementationId);
    const ned = await agentOf("ned-cc");
    expect((await ned.tool("list_criteria_changes", { problem: "checked-anew" })).criteria_changes).toEqual(
      [],
    );
  }, 120_000);

  it("refuses a malformed id or cursor naming the field", async () => {
    const sol = await agentOf("sol-cc");
    expect(await sol.tool("get_criteria_change", { criteria_change_id: "nope" })).toMatchObject({
      isError: true,
      error: { code: "invalid_input" },
    });
    expect(await sol.tool("list_criteria_changes", { cursor: "x" })).toMatchObject({
      isError: true,
      error: { code: "invalid_input", field: "cursor" },
    });
    expect(await sol.tool("list_criteria_changes", { problem: "no-such-problem" })).toMatchObject({
      isError: true,
      error: { code: "not_found" },
    });
  });
});
