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
import type { FakeGitHub } from "../support/fake-github.ts";
import { type GitHttpServer, startGitHttpServer } from "../support/git-http-server.ts";
import { createTestRepository, type TestRepository } from "../support/git-repository.ts";
import { type PayloadRepository, pullRequestPayload } from "../support/github-payloads.ts";
import { sendWebhook } from "../support/send-webhook.ts";
import { appKeyPair, type RunningApp, startFakeGitHub, startGitHubApp } from "../support/start-github-app.ts";

const APP_ID = 1718;
const SECRET = "webhook-secret-for-replica-tests";

/**
 * Two replicas of the GitHub App behind one webhook address, sharing one PostgreSQL
 * (`DATABASE_URL`): deliveries are taken once across both, and a commit's events are handled one
 * after another whichever replica each reaches.
 */
describeWithDatabase("two GitHub App replicas over one PostgreSQL", () => {
  const db = useTestDatabase();
  let service: ReturnType<typeof buildApp>;
  let root: string;
  let git: GitHttpServer;
  let github: FakeGitHub;
  let replicaA: RunningApp;
  let replicaB: RunningApp;
  let repo: TestRepository;
  let payloadRepo: PayloadRepository;
  let pullRequest = 0;

  beforeAll(async () => {
    service = buildApp(testServices(db.sql));
    const serviceUrl = await service.listen({ host: "127.0.0.1", port: 0 });
    const user = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const { token } = await issueToken(db.sql, "ada", ["read", "contribute"]);
    const keys = appKeyPair();
    github = await startFakeGitHub({ appId: APP_ID, publicKeyPem: keys.publicKey });
    root = mkdtempSync(join(tmpdir(), "svc-github-app-replicas-"));
    git = await startGitHttpServer({
      root,
      authorize: (name, password) => name === "x-access-token" && github.acceptsToken(password),
    });
    const env = {
      APP_ID: String(APP_ID),
      PRIVATE_KEY: keys.privateKey,
      WEBHOOK_SECRET: SECRET,
      GITHUB_API_URL: github.url,
      SVC_BASE_URL: serviceUrl,
      SVC_TOKENS: JSON.stringify({ 4242: token }),
      DATABASE_URL: db.url,
    };
    // Both start at once: the App's own migration is applied once.
    [replicaA, replicaB] = await Promise.all([startGitHubApp(env), startGitHubApp(env)]);
    repo = createTestRepository(root, "acme/problems");
    repo.write({ "README.md": "# Problems\n" });
    repo.commit("start");
    repo.push("main");
    payloadRepo = { owner: "acme", name: "problems", cloneUrl: `${git.url}/acme/problems.git` };
  });

  afterAll(async () => {
    await replicaA?.close();
    await replicaB?.close();
    await github?.close();
    await git?.close();
    await service?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** A new commit adding package `slug`, pushed as the head of a new pull request. */
  const newPullRequestHead = (slug: string) => {
    const files = Object.entries(scaffoldPackage({ slug, campaign: false })).map(([p, t]) => [
      `packages/${slug}/${p}`,
      t,
    ]);
    repo.git("checkout", "--quiet", "-B", `topic-${slug}`, "main");
    repo.write(Object.fromEntries(files));
    repo.commit(`add ${slug}`);
    pullRequest += 1;
    repo.push(`refs/pull/${pullRequest}/head`);
    return { sha: repo.git("rev-parse", "HEAD"), number: pullRequest, ref: `topic-${slug}` };
  };
  const openedPayload = (head: { sha: string; number: number; ref: string }) =>
    pullRequestPayload(payloadRepo, {
      action: "opened",
      number: head.number,
      headSha: head.sha,
      headRef: head.ref,
    });
  const deliverTo = (replica: RunningApp, payload: unknown, delivery?: string) =>
    sendWebhook(replica.webhookUrl, "pull_request", payload, { secret: SECRET, delivery });
  const settle = () => Promise.all([replicaA.app.settled(), replicaB.app.settled()]);
  const listsOf = (sha: string) =>
    github.calls.filter((c) => c.method === "GET" && c.path.includes(`/commits/${sha}/check-runs`)).length;

  it("1. a commit's two events reaching the two replicas at once make one check run, not two", async () => {
    const head = newPullRequestHead("alpha");
    const opened = openedPayload(head);
    const synchronized = { ...opened, action: "synchronize" };
    const answers = await Promise.all([deliverTo(replicaA, opened), deliverTo(replicaB, synchronized)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    await settle();
    const runs = github.checkRuns.filter((r) => r.head_sha === head.sha);
    expect(runs.map((r) => r.name)).toEqual(["svc/packages/alpha"]);
    expect(runs[0]!.conclusion).toBe("success");
  });

  it("2. one delivery handed to both replicas is taken once: the other does nothing new", async () => {
    const head = newPullRequestHead("beta");
    const payload = openedPayload(head);
    const delivery = "11111111-2222-4333-8444-555555555555";
    await Promise.all([deliverTo(replicaA, payload, delivery), deliverTo(replicaB, payload, delivery)]);
    await settle();
    const rows = await db.sql<{ taken_by: string; finished: boolean }[]>`
      select taken_by, finished_at is not null as finished from svc_github_app.deliveries where id = ${delivery}`;
    expect(rows).toEqual([{ taken_by: expect.any(String), finished: true }]);
    // Only the handling that took it read the commit's check runs.
    const oneHandling = listsOf(head.sha);
    expect(oneHandling).toBeGreaterThan(0);
    await deliverTo(replicaB, payload, delivery);
    await deliverTo(replicaA, payload, delivery);
    await settle();
    expect(listsOf(head.sha)).toBe(oneHandling);
    expect(github.checkRuns.filter((r) => r.head_sha === head.sha)).toHaveLength(1);
  });

  it("3. a delivery whose taker died (lease lapsed, unfinished) is taken again; one under a live lease is not", async () => {
    const head = newPullRequestHead("gamma");
    const payload = openedPayload(head);
    const live = "22222222-2222-4333-8444-555555555555";
    const lapsed = "33333333-2222-4333-8444-555555555555";
    await db.sql`
      insert into svc_github_app.deliveries (id, taken_by, lease_until) values
        (${live}, 'a-replica-still-working', now() + interval '1 hour'),
        (${lapsed}, 'a-replica-that-died', now() - interval '1 second')`;
    await deliverTo(replicaA, payload, live);
    await settle();
    expect(listsOf(head.sha)).toBe(0);
    expect(github.checkRuns.filter((r) => r.head_sha === head.sha)).toHaveLength(0);

    await deliverTo(replicaB, payload, lapsed);
    await settle();
    expect(github.checkRuns.filter((r) => r.head_sha === head.sha)).toHaveLength(1);
    const [row] = await db.sql<{ taken_by: string; finished: boolean }[]>`
      select taken_by, finished_at is not null as finished from svc_github_app.deliveries where id = ${lapsed}`;
    expect(row!.finished).toBe(true);
    expect(row!.taken_by).not.toBe("a-replica-that-died");
  });
});
