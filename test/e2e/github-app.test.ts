import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaffoldPackage } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { testServices } from "../../server/test/support/test-services.ts";
import type { FakeCheckRun, FakeGitHub } from "../support/fake-github.ts";
import { type GitHttpServer, startGitHttpServer } from "../support/git-http-server.ts";
import { createTestRepository, type TestRepository } from "../support/git-repository.ts";
import { type PayloadRepository, pullRequestPayload, pushPayload } from "../support/github-payloads.ts";
import { sendWebhook } from "../support/send-webhook.ts";
import { appKeyPair, type RunningApp, startFakeGitHub, startGitHubApp } from "../support/start-github-app.ts";

const APP_ID = 1717;
const SECRET = "webhook-secret-for-tests";

/** A standalone problem package under `dir/`, as `svc init` scaffolds it. */
function problemFiles(dir: string, slug: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(scaffoldPackage({ slug, campaign: false })).map(([p, t]) => [`${dir}/${p}`, t]),
  );
}

/**
 * The GitHub App end to end: signed deliveries POSTed to the running App, which fetches commits
 * from git's own `git http-backend`, obtains installation tokens and posts check runs on a local
 * GitHub REST server, and validates and publishes through the real service on a test database.
 */
describeWithDatabase("the GitHub App against local Git and GitHub servers and the service", () => {
  const db = useTestDatabase();
  let service: ReturnType<typeof buildApp>;
  let serviceUrl: string;
  let root: string;
  let git: GitHttpServer;
  let github: FakeGitHub;
  let running: RunningApp;
  let env: Record<string, string>;
  let repo: TestRepository;
  let payloadRepo: PayloadRepository;
  let mainSha: string;

  beforeAll(async () => {
    service = buildApp(testServices(db.sql));
    serviceUrl = await service.listen({ host: "127.0.0.1", port: 0 });
    const user = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const { token } = await issueToken(db.sql, "ada", ["read", "contribute"]);

    const keys = appKeyPair();
    github = await startFakeGitHub({ appId: APP_ID, publicKeyPem: keys.publicKey });
    root = mkdtempSync(join(tmpdir(), "svc-github-app-"));
    git = await startGitHttpServer({
      root,
      authorize: (user, password) => user === "x-access-token" && github.acceptsToken(password),
    });
    env = {
      APP_ID: String(APP_ID),
      PRIVATE_KEY: keys.privateKey,
      WEBHOOK_SECRET: SECRET,
      GITHUB_API_URL: github.url,
      SVC_BASE_URL: serviceUrl,
      SVC_TOKENS: JSON.stringify({ 4242: token }),
    };
    running = await startGitHubApp(env);

    repo = createTestRepository(root, "acme/problems");
    repo.write({ "README.md": "# Problems\n" });
    mainSha = repo.commit("start");
    repo.push("main");
    payloadRepo = { owner: "acme", name: "problems", cloneUrl: `${git.url}/acme/problems.git` };
  });

  afterAll(async () => {
    await running?.close();
    await github?.close();
    await git?.close();
    await service?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const deliver = async (
    event: string,
    payload: unknown,
    options: { delivery?: string; app?: RunningApp } = {},
  ) => {
    const target = options.app ?? running;
    const answer = await sendWebhook(target.webhookUrl, event, payload, {
      secret: SECRET,
      delivery: options.delivery,
    });
    await target.app.settled();
    // 200 once handled; 202 ("still processing") when handling outlasts the webhook middleware's
    // timeout on a loaded machine: settled() above has waited for the handling either way, and a
    // failed handling still answers 500.
    expect([200, 202]).toContain(answer.status);
    return answer;
  };
  /** Opens pull request `number` from the work tree's current HEAD. */
  const openPullRequest = async (number: number, action: "opened" | "synchronize" = "opened") => {
    const sha = repo.git("rev-parse", "HEAD");
    repo.push(`refs/pull/${number}/head`);
    await deliver(
      "pull_request",
      pullRequestPayload(payloadRepo, { action, number, headSha: sha, headRef: "topic" }),
    );
    return sha;
  };
  /** Pushes HEAD to main and delivers the push event. */
  const pushMain = async (options: { delivery?: string } = {}) => {
    const before = mainSha;
    mainSha = repo.git("rev-parse", "HEAD");
    repo.push("main");
    return deliver(
      "push",
      pushPayload(payloadRepo, { ref: "refs/heads/main", before, after: mainSha }),
      options,
    );
  };
  const runsOn = (sha: string, name?: string): FakeCheckRun[] =>
    github.checkRuns.filter((r) => r.head_sha === sha && (name === undefined || r.name === name));
  /** Check runs created or updated (a restarted App's new installation token is not a result). */
  const writes = () => github.calls.filter((c) => c.method !== "GET" && c.path.startsWith("/repos/")).length;
  const uploads = async () => Number((await db.sql`select count(*)::int as n from authoring_uploads`)[0]!.n);

  it("fails a pull request with a lint error, annotated at the offending file and line", async () => {
    // 1. A problem whose priority_weight is a string, on line 5 of its problem.json.
    repo.git("checkout", "--quiet", "-b", "topic");
    const files = problemFiles("packages/sqrt", "sqrt");
    const problem = JSON.parse(files["packages/sqrt/problem.json"]!);
    files["packages/sqrt/problem.json"] = `${JSON.stringify(
      { slug: problem.slug, title: problem.title, summary: problem.summary, priority_weight: "high" },
      null,
      2,
    )}\n`;
    expect(files["packages/sqrt/problem.json"]!.split("\n")[4]).toContain('"priority_weight"');
    repo.write(files);
    repo.commit("add sqrt, broken");
    const sha = await openPullRequest(1);

    // 2. One check run for the package: failure, the annotation on line 5 of problem.json.
    const [run] = runsOn(sha, "svc/packages/sqrt");
    expect(run).toMatchObject({ status: "completed", conclusion: "failure", external_id: "" });
    expect(run!.output.title).toMatch(/1 lint error/);
    expect(run!.annotations).toContainEqual(
      expect.objectContaining({
        path: "packages/sqrt/problem.json",
        start_line: 5,
        end_line: 5,
        annotation_level: "failure",
        title: "schema_violation",
      }),
    );
    expect(run!.output.summary).toContain("`packages/sqrt/problem.json` | 5 | schema_violation");
    // 3. The installation token fetched the commit; nothing was uploaded for a package that fails lint.
    expect(git.requests.some((r) => r.user === "x-access-token" && r.status === 200)).toBe(true);
    expect(
      github.calls.some((c) => c.path === "/app/installations/4242/access_tokens" && c.status === 201),
    ).toBe(true);
    expect(await uploads()).toBe(0);
  });

  it("reports create for a pull request adding a problem, with its plan_hash in external_id", async () => {
    repo.write(problemFiles("packages/sqrt", "sqrt"));
    repo.commit("fix sqrt");
    const sha = await openPullRequest(1, "synchronize");
    const [run] = runsOn(sha, "svc/packages/sqrt");
    expect(run).toMatchObject({ status: "completed", conclusion: "success" });
    expect(run!.external_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(run!.output.title).toBe("1 problem: 1 create");
    expect(run!.output.summary).toContain("| `sqrt` | **create** | 1 |");
    expect(run!.output.summary).toContain(run!.external_id!);
    // While the service's conformance fixtures were queued (this service runs no worker), the
    // running check said so, at once and every 30 s, before it completed.
    const progress = github.calls.filter(
      (c) =>
        c.method === "PATCH" &&
        c.path === `/repos/acme/problems/check-runs/${run!.id}` &&
        (c.body as { output?: { title?: string } }).output?.title === "Waiting for conformance fixtures",
    );
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]!.body).toMatchObject({
      status: "in_progress",
      output: { summary: expect.stringContaining("waited 0 s of at most 600 s") },
    });
    // Validated, never published.
    const published = await db.sql`select count(*)::int as n from problems`;
    expect(published[0]!.n).toBe(0);
  });

  let mergeDelivery: string;
  it("publishes on merge to main, with the plan_hash its check reported", async () => {
    repo.git("checkout", "--quiet", "main");
    repo.git("merge", "--quiet", "--no-ff", "-m", "Merge pull request #1", "topic");
    const answer = await pushMain();
    mergeDelivery = answer.delivery;

    const [check] = runsOn(mainSha, "svc/packages/sqrt");
    expect(check).toMatchObject({ conclusion: "success", external_id: expect.stringMatching(/^sha256:/) });
    const [publish] = runsOn(mainSha, "svc/publish");
    expect(publish).toMatchObject({ status: "completed", conclusion: "success", external_id: mergeDelivery });
    expect(publish!.output.title).toBe("Published 1 problem: 1 create");
    const [row] = await db.sql<{ id: string; slug: string }[]>`select id, slug from problems`;
    expect(row!.slug).toBe("sqrt");
    expect(publish!.output.summary).toContain(`| \`packages/sqrt\` | \`sqrt\` | create | 1 | \`${row!.id}\``);
    const [upload] = await db.sql<{ plan_hash: string; state: string }[]>`
      select plan_hash, state from authoring_uploads where state = 'published'`;
    expect(upload!.plan_hash).toBe(check!.external_id);
  });

  it("does nothing new for the same delivery again, in the same process or after a restart", async () => {
    const before = { writes: writes(), uploads: await uploads(), runs: github.checkRuns.length };
    // 1. Redelivered to the running App.
    await pushMain({ delivery: mergeDelivery });
    // 2. Redelivered to a freshly started App: it reads its earlier check runs back from GitHub.
    const restarted = await startGitHubApp(env);
    try {
      const payload = pushPayload(payloadRepo, { ref: "refs/heads/main", before: mainSha, after: mainSha });
      await deliver("push", payload, { delivery: mergeDelivery, app: restarted });
    } finally {
      await restarted.close();
    }
    expect(writes()).toBe(before.writes);
    expect(github.checkRuns.length).toBe(before.runs);
    expect(await uploads()).toBe(before.uploads);
    expect(await db.sql`select count(*)::int as n from problem_revisions`).toEqual([{ n: 1 }]);
  });

  it("revises a problem whose statement is edited on main", async () => {
    repo.write({
      "packages/sqrt/statement.md": "# Integer square root\n\nFind the positive root of 1522756, again.\n",
    });
    repo.commit("edit the statement");
    await pushMain();
    const [check] = runsOn(mainSha, "svc/packages/sqrt");
    expect(check!.output.title).toBe("1 problem: 1 revise");
    expect(check!.output.summary).toMatch(/\| `sqrt` \| \*\*revise\*\* \| 1 → 2 \| statement/);
    const [publish] = runsOn(mainSha, "svc/publish");
    expect(publish).toMatchObject({ conclusion: "success" });
    expect(publish!.output.summary).toContain("| `sqrt` | revise | 2 |");
    expect(await db.sql`select count(*)::int as n from problem_revisions`).toEqual([{ n: 2 }]);
  });

  it("refuses an unsigned or forged delivery and does nothing", async () => {
    const before = { calls: github.calls.length, git: git.requests.length, uploads: await uploads() };
    const payload = pushPayload(payloadRepo, { ref: "refs/heads/main", before: mainSha, after: mainSha });
    const forged = await sendWebhook(running.webhookUrl, "push", payload, { secret: "not-the-secret" });
    const unsigned = await sendWebhook(running.webhookUrl, "push", payload, { secret: null });
    await running.app.settled();
    expect(forged.status).toBe(400);
    expect(unsigned.status).toBe(400);
    expect(github.calls.length).toBe(before.calls);
    expect(git.requests.length).toBe(before.git);
    expect(await uploads()).toBe(before.uploads);
  });

  it("posts one check per package of a repository holding two", async () => {
    repo.git("checkout", "--quiet", "-b", "two");
    repo.write(problemFiles("packages/cube", "cube"));
    repo.commit("a second package");
    const sha = await openPullRequest(2);
    const names = runsOn(sha)
      .map((r) => r.name)
      .sort();
    expect(names).toEqual(["svc/packages/cube", "svc/packages/sqrt"]);
    const byName = new Map(runsOn(sha).map((r) => [r.name, r]));
    expect(byName.get("svc/packages/cube")!.output.title).toBe("1 problem: 1 create");
    expect(byName.get("svc/packages/sqrt")!.output.title).toBe("1 problem: 1 noop");
  });

  it("publishes nothing when a package on main fails lint", async () => {
    repo.git("checkout", "--quiet", "main");
    repo.write({ "packages/sqrt/problem.json": "{ not json" });
    repo.commit("break sqrt on main");
    const before = await uploads();
    await pushMain();
    const [publish] = runsOn(mainSha, "svc/publish");
    expect(publish).toMatchObject({ conclusion: "failure" });
    expect(publish!.output.title).toBe("Nothing published: lint errors in 1 package");
    expect(await uploads()).toBe(before);
  });
});
