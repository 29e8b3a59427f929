import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import { expect, it } from "vitest";
import { tools } from "../../../src/edges/mcp/tools/tools.ts";
import { grantCapability, grantRole } from "../../../src/users/index.ts";
import { useSolvingFixture } from "../../attempts/support/solving-fixture.ts";
import { describeWithDatabase } from "../../support/test-database.ts";
import { envelopeOf, type ListedTool } from "./support/mcp-clients.ts";

/**
 * Issue 36: every tool declares an outputSchema, and what it returns matches it. The SDK client
 * validates every successful result against the listed schema itself (a mismatch throws); the
 * test validates every result, refusals included, with the SDK's own validator.
 */
describeWithDatabase("structured output on every tool", () => {
  const f = useSolvingFixture();

  it("declares an outputSchema on every tool, and every call's structuredContent matches it", async () => {
    // An administrator and author, so tools/list (filtered by live role) shows every tool.
    await grantRole(f.services.sql, { userId: f.solver.id, role: "administrator" });
    await grantCapability(f.services.sql, { userId: f.solver.id, capability: "author" });
    const client = f.as(f.solver);
    const listed = new Map(
      ((await client.listTools()) as Array<ListedTool & { outputSchema?: Record<string, unknown> }>).map(
        (tool) => [tool.name, tool],
      ),
    );
    const validator = new AjvJsonSchemaValidator();
    const missing = tools.filter((tool) => listed.get(tool.name)?.outputSchema === undefined);
    expect(
      missing.map((tool) => tool.name),
      "tools without an outputSchema",
    ).toEqual([]);

    const called = new Set<string>();
    const succeeded: string[] = [];
    async function call(name: string, args: Record<string, unknown> = {}) {
      // The SDK client validates a successful result against the schema and throws on a mismatch.
      const result = await client.callTool(name, args);
      const envelope = envelopeOf(result);
      const check = validator.getValidator(listed.get(name)!.outputSchema!)(envelope);
      expect(check.valid, `${name}: ${check.errorMessage} in ${JSON.stringify(envelope)}`).toBe(true);
      called.add(name);
      if (!result.isError) succeeded.push(name);
      return { envelope, isError: result.isError === true };
    }

    // The solving agent's path, each call succeeding, so each result is validated on its success branch.
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      const { envelope, isError } = await call(name, args);
      expect(isError, `${name}: ${JSON.stringify(envelope)}`).toBe(false);
      return envelope as Record<string, never>;
    };
    await ok("whoami");
    await ok("list_campaigns");
    await ok("search_problems", { query: "answer" });
    await ok("get_problem", { problem: "graded" });
    await ok("pick_problem");
    const { attempt } = await ok("start_attempt", { problem: "graded" });
    const attemptId = (attempt as { id: string }).id;
    await ok("get_attempt", { attempt_id: attemptId });
    await ok("list_my_attempts");
    await ok("list_attempts", { problem: "graded" });
    await ok("add_note", { attempt_id: attemptId, body_md: "Trying the obvious first." });
    const answer = await ok("upload_artifact", {
      attempt_id: attemptId,
      filename: "answer.json",
      media_type: "application/json",
      content_text: '{"answer": 42}',
    });
    const proof = await ok("upload_artifact", {
      attempt_id: attemptId,
      filename: "proof.txt",
      media_type: "text/plain",
      content_text: "It is the answer.",
    });
    const { submission, verification_run_id } = await ok("create_submission", {
      attempt_id: attemptId,
      artifacts: [
        { role: "answer", artifact_id: (answer.artifact as { id: string }).id },
        { role: "proof", artifact_id: (proof.artifact as { id: string }).id },
      ],
    });
    await ok("get_submission", { submission_id: (submission as { id: string }).id });
    expect(verification_run_id).toEqual(expect.any(String));
    await ok("get_verification", { verification_run_id });
    await ok("end_attempt", { attempt_id: attemptId, outcome: "gave_up", note_md: "Out of ideas." });

    // Every other tool once, with no arguments: mostly refusals, each an envelope its schema admits.
    for (const tool of tools) if (!called.has(tool.name)) await call(tool.name);
    expect([...called].sort()).toEqual(tools.map((tool) => tool.name).sort());
    console.log(
      `structured output: ${tools.length} tools called, ${succeeded.length} on their success branch ` +
        `(${new Set(succeeded).size} distinct), every result valid against its outputSchema`,
    );
  });
});
