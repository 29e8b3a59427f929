import { afterEach, describe, expect, it } from "vitest";
import { publishValidated } from "../../src/checks/publish-validated.ts";
import { validatePackage } from "../../src/checks/validate-package.ts";
import { CLI_SHARD_LIMITS } from "../../src/client/plan-shards.ts";
import { publishPackage } from "../../src/client/publish-package.ts";
import type { PublishState } from "../../src/client/publish-state.ts";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { openDirectoryTree } from "../../src/tree/open-directory-tree.ts";
import { writePackage } from "../cli/support-run.ts";
import { campaignFiles } from "./support/campaign-files.ts";
import { FakeAuthoringService } from "./support/fake-authoring-service.ts";

/**
 * The reviewed plan_hash guard of the publish engine, against the fake service (which lints
 * uploads as the real validator does): what the caller reviewed is all that is ever published.
 * test/e2e/publish-guard.test.ts does the same against the real service.
 */
const ELSEWHERE = `sha256:${"0".repeat(64)}`;
const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

async function linted(files: Record<string, string>) {
  const written = writePackage(files);
  cleanup.push(written.remove);
  const tree = await openDirectoryTree(written.dir);
  const lint = await lintPackage(tree);
  return { tree, plan: lint.plan!, planHash: lint.plan_hash! };
}

describe("the publish engine's plan_hash guard", () => {
  it("svc draft's engine refuses a shard the service plans otherwise than the local lint, publishing nothing", async () => {
    const service = new FakeAuthoringService();
    const pkg = await linted(campaignFiles(2));
    let saved: PublishState | undefined;
    const { summary, failure } = await publishPackage({
      client: service.client(),
      tree: pkg.tree,
      plan: pkg.plan,
      planHash: ELSEWHERE,
      server: "http://svc.test",
      previous: null,
      save: async (state) => {
        saved = structuredClone(state);
      },
      retry: { sleep: async () => {} },
    });
    expect(failure).toMatchObject({ kind: "stale", shard: 0, code: "stale_plan_hash" });
    expect(summary).toMatchObject({ ok: false, published_shards: 0 });
    expect(service.calls).not.toContain("publish_authoring_upload");
    expect(saved!.shards[0]).toMatchObject({ status: "uploaded", error: { code: "stale_plan_hash" } });
  });

  it("svc draft reviews each of several shards with the local lint of exactly its files", async () => {
    const service = new FakeAuthoringService();
    const pkg = await linted(campaignFiles(5));
    const { summary, failure } = await publishPackage({
      client: service.client(),
      tree: pkg.tree,
      plan: pkg.plan,
      planHash: pkg.planHash,
      server: "http://svc.test",
      limits: { ...CLI_SHARD_LIMITS, maxProblems: 2 },
      previous: null,
      save: async () => {},
      retry: { sleep: async () => {} },
    });
    expect(failure).toBeNull();
    expect(summary.published_shards).toBe(3);
    // Each shard's plan differs from the package's, and each was published with its own.
    const hashes = summary.shards.map((s) => s.plan_hash);
    expect(new Set(hashes).size).toBe(3);
    expect(hashes).not.toContain(pkg.planHash);
  });

  it("the App sends nothing for a package of several shards whose files plan otherwise than its check run showed", async () => {
    const service = new FakeAuthoringService();
    const pkg = await linted(campaignFiles(3));
    const client = service.client();
    const validated = await validatePackage(client, pkg.tree, pkg.plan, {
      limits: { ...CLI_SHARD_LIMITS, maxProblems: 2 },
    });
    expect(validated.shards).toHaveLength(2);
    const outcome = await publishValidated(
      client,
      { tree: pkg.tree, validated },
      { reviewed: ELSEWHERE, linted: pkg.planHash },
    );
    expect(outcome).toMatchObject({ ok: false, code: "stale_plan_hash" });
    expect(service.calls).not.toContain("publish_authoring_upload");
  });
});
