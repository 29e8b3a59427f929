import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { campaignFiles } from "../../app/test/client/support/campaign-files.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { builtinsOnly, testServices } from "../../server/test/support/test-services.ts";
import type { FakeGitHub } from "../support/fake-github.ts";
import { type GitHttpServer, startGitHttpServer } from "../support/git-http-server.ts";
import { createTestRepository } from "../support/git-repository.ts";
import { pullRequestPayload } from "../support/github-payloads.ts";
import { sendWebhook } from "../support/send-webhook.ts";
import { appKeyPair, type RunningApp, startFakeGitHub, startGitHubApp } from "../support/start-github-app.ts";

const APP_ID = 99;
const SECRET = "large-plan-secret";

/**
 * The App on packages too large for one screen: a 2,000-problem campaign (seven shards validated
 * by the service) keeps its check summary under GitHub's 65,535-character ceiling with a pointer
 * to the full report, and 121 annotations go 50 per request.
 */
describeWithDatabase("the GitHub App on large plans", () => {
  const db = useTestDatabase();
  let service: ReturnType<typeof buildApp>;
  let root: string;
  let git: GitHttpServer;
  let github: FakeGitHub;
  let running: RunningApp;

  beforeAll(async () => {
    // Builtins only: the test is about the summary's size, so no sandboxed fixture is queued
    // for the check to wait on (the waiting itself: test/e2e/action-bundle.test.ts).
    service = buildApp(testServices(db.sql, { sandbox: builtinsOnly() }));
    const serviceUrl = await service.listen({ host: "127.0.0.1", port: 0 });
    const user = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const { token } = await issueToken(db.sql, "ada", ["read", "contribute"]);
    const keys = appKeyPair();
    github = await startFakeGitHub({ appId: APP_ID, publicKeyPem: keys.publicKey });
    root = mkdtempSync(join(tmpdir(), "svc-github-large-"));
    git = await startGitHttpServer({ root });
    running = await startGitHubApp({
      APP_ID: String(APP_ID),
      PRIVATE_KEY: keys.privateKey,
      WEBHOOK_SECRET: SECRET,
      GITHUB_API_URL: github.url,
      SVC_BASE_URL: serviceUrl,
      SVC_TOKEN: token,
    });
  }, 60_000);

  afterAll(async () => {
    await running?.close();
    await github?.close();
    await git?.close();
    await service?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const checkPullRequest = async (name: string, files: Record<string, string>) => {
    const repo = createTestRepository(root, `acme/${name}`);
    repo.write({ "README.md": "# Large\n" });
    repo.commit("start");
    repo.push("main");
    repo.write(files);
    const sha = repo.commit("a large package");
    repo.push("refs/pull/1/head");
    const payload = pullRequestPayload(
      { owner: "acme", name, cloneUrl: `${git.url}/acme/${name}.git` },
      { action: "opened", number: 1, headSha: sha, headRef: "topic" },
    );
    const started = performance.now();
    const answer = await sendWebhook(running.webhookUrl, "pull_request", payload, { secret: SECRET });
    await running.app.settled();
    expect([200, 202]).toContain(answer.status);
    return { sha, seconds: (performance.now() - started) / 1000 };
  };

  it("keeps the summary of a 2,000-problem plan under the ceiling, pointing at the full report", async () => {
    const files = Object.fromEntries(Object.entries(campaignFiles(2000)).map(([p, t]) => [`big/${p}`, t]));
    const { sha, seconds } = await checkPullRequest("big", files);
    const run = github.checkRuns.find((r) => r.head_sha === sha && r.name === "svc/big");
    expect(run).toMatchObject({ status: "completed", conclusion: "success" });
    expect(run!.output.title).toBe("2000 problems: 2000 create");
    const summary = run!.output.summary!;
    expect(summary.length).toBeLessThanOrEqual(65_535);
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(65_535);
    expect(summary).toContain("| `p-0000` | **create** | 1 |");
    expect(summary).toMatch(/_Not shown: \d+ problems\. Full report: `npx svc lint big --json`/);
    expect(summary).toContain(`/tree/${sha}/big`);
    // Seven shards of at most 300 problems, each validated, none published.
    expect(await db.sql`select count(*)::int as n from authoring_uploads where state = 'validated'`).toEqual([
      { n: 7 },
    ]);
    expect(await db.sql`select count(*)::int as n from problems`).toEqual([{ n: 0 }]);
    console.log(`2,000-problem pull request checked in ${seconds.toFixed(1)} s`);
  }, 180_000);

  it("annotates 120 lint errors and a warning in batches of 50 per request", async () => {
    const files = campaignFiles(120);
    let line = 0;
    for (const path of Object.keys(files)) {
      if (path.endsWith("/problem.json")) {
        files[path] = JSON.stringify({ ...JSON.parse(files[path]!), priority_weight: 7 }, null, 2);
        line = files[path]!.split("\n").findIndex((l) => l.includes('"priority_weight"')) + 1;
      }
    }
    const { sha } = await checkPullRequest("broken", files);
    const run = github.checkRuns.find((r) => r.head_sha === sha && r.name === "svc/.");
    expect(run).toMatchObject({ conclusion: "failure" });
    const failures = run!.annotations.filter((a) => a.annotation_level === "failure");
    expect(failures).toHaveLength(120);
    expect(line).toBeGreaterThan(1);
    expect(failures.every((a) => a.start_line === line && a.path.endsWith("/problem.json"))).toBe(true);
    // And the README at the package root, a file the format ignores: a warning.
    expect(run!.annotations).toContainEqual(
      expect.objectContaining({ path: "README.md", annotation_level: "warning", title: "ignored_file" }),
    );
    const updates = github.calls.filter(
      (c) => c.method === "PATCH" && c.path === `/repos/acme/broken/check-runs/${run!.id}`,
    );
    expect(
      updates.map((c) => (c.body as { output: { annotations: unknown[] } }).output.annotations.length),
    ).toEqual([50, 50, 21]);
  }, 60_000);
});
