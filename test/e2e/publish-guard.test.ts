import { afterAll, beforeAll, expect, it } from "vitest";
import { publishValidated } from "../../app/src/checks/publish-validated.ts";
import { validatePackage } from "../../app/src/checks/validate-package.ts";
import { CLI_SHARD_LIMITS } from "../../app/src/client/plan-shards.ts";
import { publishPackage } from "../../app/src/client/publish-package.ts";
import type { PublishState } from "../../app/src/client/publish-state.ts";
import { ServiceCallError } from "../../app/src/client/service-call-error.ts";
import { openServiceClient, type ServiceClient } from "../../app/src/client/service-client.ts";
import { lintPackage } from "../../app/src/lint/lint-package.ts";
import { openDirectoryTree } from "../../app/src/tree/open-directory-tree.ts";
import { writePackage } from "../../app/test/cli/support-run.ts";
import { campaignFiles } from "../../app/test/client/support/campaign-files.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { testServices } from "../../server/test/support/test-services.ts";

/**
 * The plan_hash guard end to end, against buildApp on a loopback port over MCP and the signed
 * PUT: a client publishes only with the plan_hash it reviewed, and when the service plans the
 * same files differently it is refused with stale_plan_hash and nothing is published, whether the
 * client's engine notices first (svc draft, the App) or the service does (publish_authoring_upload).
 */
describeWithDatabase("the publish guard against the service", () => {
  const db = useTestDatabase();
  let app: ReturnType<typeof buildApp>;
  let url: string;
  let client: ServiceClient;
  const cleanup: Array<() => void> = [];
  const ELSEWHERE = `sha256:${"0".repeat(64)}`;

  beforeAll(async () => {
    app = buildApp(testServices(db.sql));
    url = await app.listen({ host: "127.0.0.1", port: 0 });
    const user = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const { token } = await issueToken(db.sql, "ada", ["read", "contribute"]);
    client = openServiceClient({ server: url, token });
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
    for (const fn of cleanup) fn();
  });

  async function linted(files: Record<string, string>) {
    const written = writePackage(files);
    cleanup.push(written.remove);
    const tree = await openDirectoryTree(written.dir);
    const lint = await lintPackage(tree);
    expect(lint.plan_hash).not.toBeNull();
    return { dir: written.dir, tree, plan: lint.plan!, planHash: lint.plan_hash! };
  }

  const publishedCount = async () =>
    Number(
      (
        await db.sql<{ n: string }[]>`select count(*) as n from authoring_uploads where state = 'published'`
      )[0]!.n,
    );
  const problemCount = async (slugs: string[]) =>
    Number(
      (await db.sql<{ n: string }[]>`select count(*) as n from problems where slug in ${db.sql(slugs)}`)[0]!
        .n,
    );

  it("refuses svc draft's engine with stale_plan_hash when the local plan differs, publishing nothing", async () => {
    const pkg = await linted(campaignFiles(1, { campaign: "guard-draft", prefix: "gd" }));
    const slugs = pkg.plan.problems.map((p) => p.slug);
    let saved: PublishState | undefined;
    const before = await publishedCount();
    const { summary, failure } = await publishPackage({
      client,
      tree: pkg.tree,
      plan: pkg.plan,
      // The local lint planned these files elsewhere than the service does.
      planHash: ELSEWHERE,
      server: url,
      previous: null,
      save: async (state) => {
        saved = structuredClone(state);
      },
      retry: { sleep: async () => {} },
    });
    expect(failure).toMatchObject({ kind: "stale", code: "stale_plan_hash" });
    expect(failure && "message" in failure ? failure.message : "").toContain(ELSEWHERE);
    expect(summary.ok).toBe(false);
    expect(saved!.shards[0]).toMatchObject({ status: "uploaded", plan_hash: pkg.planHash });
    expect(await publishedCount()).toBe(before);
    expect(await problemCount(slugs)).toBe(0);

    // The same files reviewed with the local lint's own plan_hash publish.
    const ok = await publishPackage({
      client,
      tree: pkg.tree,
      plan: pkg.plan,
      planHash: pkg.planHash,
      server: url,
      previous: null,
      save: async () => {},
      retry: { sleep: async () => {} },
    });
    expect(ok.failure).toBeNull();
    expect(await problemCount(slugs)).toBe(1);
  });

  it("refuses the App's publication when the check run showed another plan_hash, publishing nothing", async () => {
    for (const [shards, campaign] of [
      [1, "guard-app-one"],
      [2, "guard-app-two"],
    ] as const) {
      const pkg = await linted(campaignFiles(4, { campaign, prefix: campaign.slice(-3) }));
      const slugs = pkg.plan.problems.map((p) => p.slug);
      const limits = { ...CLI_SHARD_LIMITS, maxProblems: shards === 1 ? CLI_SHARD_LIMITS.maxProblems : 2 };
      const validated = await validatePackage(client, pkg.tree, pkg.plan, { limits });
      expect(validated.valid).toBe(true);
      expect(validated.shards).toHaveLength(shards === 1 ? 1 : 2);
      const before = await publishedCount();
      const outcome = await publishValidated(
        client,
        { tree: pkg.tree, validated },
        { reviewed: ELSEWHERE, linted: pkg.planHash },
        { sleep: async () => {} },
      );
      expect(outcome).toMatchObject({ ok: false, code: "stale_plan_hash" });
      expect(await publishedCount()).toBe(before);
      expect(await problemCount(slugs)).toBe(0);
    }
  });

  it("the service refuses publish_authoring_upload with stale_plan_hash for a plan_hash it did not validate", async () => {
    const pkg = await linted(campaignFiles(1, { campaign: "guard-server", prefix: "gs" }));
    const slugs = pkg.plan.problems.map((p) => p.slug);
    const validated = await validatePackage(client, pkg.tree, pkg.plan);
    const upload = validated.shards[0]!;
    expect(upload.plan_hash).toBe(pkg.planHash);

    const refusal = await client
      .callTool("publish_authoring_upload", { upload_id: upload.upload_id, plan_hash: ELSEWHERE })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refusal).toBeInstanceOf(ServiceCallError);
    expect(refusal).toMatchObject({ code: "stale_plan_hash", details: { expected_plan_hash: pkg.planHash } });
    expect(await problemCount(slugs)).toBe(0);

    const published = await publishValidated(
      client,
      { tree: pkg.tree, validated },
      { reviewed: pkg.planHash, linted: pkg.planHash },
    );
    expect(published).toMatchObject({ ok: true, problems: [{ slug: slugs[0], action: "create" }] });
    expect(await problemCount(slugs)).toBe(1);
  });
});
