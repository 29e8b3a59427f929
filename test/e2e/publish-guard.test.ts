import {
  checkPackage,
  openDirectoryTree,
  openServiceClient,
  publishValidated,
  type ServiceClient,
} from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
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

  /** A package as the App and the Action see it: linted, then uploaded and validated. */
  async function checked(files: Record<string, string>) {
    const written = writePackage(files);
    cleanup.push(written.remove);
    const check = await checkPackage(".", () => openDirectoryTree(written.dir), {
      client,
      retry: { sleep: async () => {} },
    });
    expect(check.service).toMatchObject({ ok: true, result: { valid: true } });
    if (!check.service?.ok) throw new Error("not validated");
    return {
      tree: check.tree!,
      planHash: check.lint.plan_hash!,
      slugs: check.lint.plan!.problems.map((p) => p.slug),
      validated: check.service.result,
    };
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

  it("refuses the App's publication when its check run showed another plan_hash, publishing nothing", async () => {
    const pkg = await checked(campaignFiles(2, { campaign: "guard-app", prefix: "ga" }));
    expect(pkg.validated.shards).toHaveLength(1);
    const before = await publishedCount();
    const refused = await publishValidated(
      client,
      { tree: pkg.tree, validated: pkg.validated },
      // The check run reviewed a plan the service does not compute for these files.
      { reviewed: ELSEWHERE, linted: pkg.planHash },
      { sleep: async () => {} },
    );
    expect(refused).toMatchObject({ ok: false, code: "stale_plan_hash" });
    expect(refused.ok ? "" : refused.message).toContain(ELSEWHERE);
    expect(await publishedCount()).toBe(before);
    expect(await problemCount(pkg.slugs)).toBe(0);

    // The Action's way: its own lint's plan_hash, which the service computes too.
    const published = await publishValidated(
      client,
      { tree: pkg.tree, validated: pkg.validated },
      { reviewed: pkg.planHash, linted: pkg.planHash },
    );
    expect(published).toMatchObject({ ok: true });
    expect(await problemCount(pkg.slugs)).toBe(2);
  });

  it("the service refuses publish_authoring_upload with stale_plan_hash for a plan_hash it did not validate", async () => {
    const pkg = await checked(campaignFiles(1, { campaign: "guard-server", prefix: "gs" }));
    const upload = pkg.validated.shards[0]!;
    expect(upload.plan_hash).toBe(pkg.planHash);
    const slugs = pkg.slugs;

    const refusal = await client
      .callTool("publish_authoring_upload", { upload_id: upload.upload_id, plan_hash: ELSEWHERE })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refusal).toMatchObject({ code: "stale_plan_hash", details: { expected_plan_hash: pkg.planHash } });
    expect(await problemCount(slugs)).toBe(0);

    const published = await publishValidated(
      client,
      { tree: pkg.tree, validated: pkg.validated },
      { reviewed: pkg.planHash, linted: pkg.planHash },
    );
    expect(published).toMatchObject({ ok: true, problems: [{ slug: slugs[0], action: "create" }] });
    expect(await problemCount(slugs)).toBe(1);
  });
});
