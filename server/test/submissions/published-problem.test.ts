import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import { call } from "../attempts/support/solving-fixture.ts";
import { fixturePackage, newAuthor, publishFiles } from "../authoring/support/authoring-harness.ts";
import { clientLines, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

/**
 * A published package (the builtin SAT checker's fixture) solved end to end over /mcp on every
 * client line: start, upload, submit (a queued run), end, continue.
 */
describeWithDatabase.each(clientLines)("solving a published problem ($name)", ({ connect }) => {
  const db = useTestDatabase();
  let services: Services;
  let running: RunningApp;
  let client: TestClient;

  beforeAll(async () => {
    services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    await publishFiles(services, author, fixturePackage("valid-builtin-sat"));
    const { token } = await issueToken(db.sql, author.user.handle, ["contribute"]);
    running = await startApp(services);
    client = await connect(running.url, token);
  });

  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  it("starts, submits against the published contract, ends and continues", async () => {
    // 1. Start: the contract's role is named in next_steps.
    const started = await call<{
      attempt: { id: string };
      next_steps: string[];
      reference_resources: unknown[];
    }>(client, "start_attempt", { problem: "small-sat" });
    const attempt = started.attempt.id;
    expect(started.next_steps.join(" ")).toContain('"assignment" (text/plain');
    expect(started.reference_resources).toHaveLength(1);
    // 2. Upload and submit.
    const { artifact } = await call<{ artifact: { id: string } }>(client, "upload_artifact", {
      attempt_id: attempt,
      filename: "assignment.txt",
      content_text: "1 -2 3 0\n",
    });
    const created = await call<{ submission: { id: string }; verification_run_id: string }>(
      client,
      "create_submission",
      { attempt_id: attempt, artifacts: [{ role: "assignment", artifact_id: artifact.id }] },
    );
    expect(created.verification_run_id).toMatch(/^vrn_/);
    const got = await call<{ submission: { verification_run_ids: string[] } }>(client, "get_submission", {
      submission_id: created.submission.id,
      working_attempt_id: attempt,
    });
    expect(got.submission.verification_run_ids).toEqual([created.verification_run_id]);
    // 3. End and continue: the continuation sees the queued run.
    await call(client, "end_attempt", {
      attempt_id: attempt,
      outcome: "solved",
      note_md: "Assignment found.",
    });
    const next = await call<{ continues: { submissions: Array<{ verification: { status: string } }> } }>(
      client,
      "start_attempt",
      { problem: "small-sat", continues_attempt_id: attempt },
    );
    expect(next.continues.submissions[0]!.verification.status).toBe("queued");
  });
});
