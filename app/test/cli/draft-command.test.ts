import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.ts";
import { scaffoldPackage } from "../../src/cli/scaffold-package.ts";
import type { PublishState } from "../../src/client/publish-state.ts";
import { campaignFiles } from "../client/support/campaign-files.ts";
import { FakeAuthoringService } from "../client/support/fake-authoring-service.ts";
import { svcWith, writePackage } from "./support-run.ts";

let service: FakeAuthoringService;
let sleeps: number[];
let cleanup: Array<() => void>;
const SERVER = "http://svc.test";

beforeEach(() => {
  service = new FakeAuthoringService();
  sleeps = [];
  cleanup = [];
});
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

function deps(owner = "usr_ada", env: Record<string, string | undefined> = {}): Partial<CliDeps> {
  return {
    env: { SVC_BASE_URL: SERVER, SVC_TOKEN: "svc_token", XDG_CONFIG_HOME: "/nonexistent", ...env },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    now: () => new Date("2030-01-02T03:04:05Z"),
    openClient: () => service.client(owner),
  };
}

function pkg(files: Record<string, string>): string {
  const written = writePackage(files);
  cleanup.push(written.remove);
  return written.dir;
}

const draft = (dir: string, ...flags: string[]) => svcWith(deps(), ["draft", dir, ...flags]);
const json = (stdout: string) => JSON.parse(stdout);
const state = (dir: string): PublishState =>
  JSON.parse(readFileSync(join(dir, ".svc/publish-state.json"), "utf8"));

describe("svc draft", () => {
  it("publishes a campaign in shards and prints exactly the summary keys with --json", async () => {
    const dir = pkg(campaignFiles(5));
    const run = await draft(dir, "--json", "--shard-problems", "2");
    expect(run.code).toBe(0);
    const summary = json(run.stdout);
    expect(Object.keys(summary)).toEqual([
      "ok",
      "campaign",
      "problems_total",
      "planned_shards",
      "published_shards",
      "skipped_shards",
      "counts",
      "problems",
      "ids",
      "shards",
      "published_at",
    ]);
    expect(summary).toMatchObject({
      ok: true,
      campaign: { slug: "x-campaign", action: "create", campaign_id: "cmp_0001" },
      problems_total: 5,
      planned_shards: 3,
      published_shards: 3,
      skipped_shards: 0,
      counts: { create: 5, update: 0, revise: 0, noop: 0, conflict: 0 },
      published_at: "2030-01-02T03:04:05.000Z",
    });
    expect(summary.problems.map((p: { slug: string }) => p.slug)).toEqual([
      "p-0",
      "p-1",
      "p-2",
      "p-3",
      "p-4",
    ]);
    expect(summary.problems[0]).toEqual({
      slug: "p-0",
      action: "create",
      problem_id: expect.stringMatching(/^prb_/),
      problem_revision_id: expect.stringMatching(/^prv_/),
      revision_number: 1,
    });
    expect(summary.shards.map((s: { slugs: string[] }) => s.slugs)).toEqual([
      ["p-0", "p-1"],
      ["p-2", "p-3"],
      ["p-4"],
    ]);
    expect(summary.ids.verifier_contract_ids).toHaveLength(1);

    const saved = state(dir);
    expect(saved.server).toBe(SERVER);
    expect(saved.shards.map((s) => s.status)).toEqual(["published", "published", "published"]);
    expect(saved.shards[0]).toMatchObject({ attempts: 4, upload_id: expect.stringMatching(/^upl_/) });
  });

  it("publishes, then exits 3 naming each failed fixture, its traceback and the implementation that stays current", async () => {
    service.failConformance = true;
    const dir = pkg(campaignFiles(2));
    const run = await draft(dir);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain("published: 2 problems in 1 shard (1 published): 2 create");
    expect(run.stdout).toContain(
      "  FAIL check_answer/right_answer: expected verified, actual error (checker.py)",
    );
    expect(run.stdout).toContain("| RuntimeError: the checker broke");
    expect(run.stdout).toContain(
      "  check_answer: vfi_passed0001 (version 1) stays current; checker.py does not replace it",
    );

    const again = await draft(pkg(campaignFiles(2, { prefix: "q" })), "--json");
    expect(again.code).toBe(3);
    const summary = json(again.stdout);
    expect(summary.ok).toBe(true);
    expect(summary.conformance_failures).toEqual([
      expect.objectContaining({
        stage_key: "check_answer",
        fixture: "right_answer",
        actual: "error",
        program: "checker.py",
        log_tail: expect.stringContaining("RuntimeError: the checker broke"),
        stays_current: {
          verifier_contract_id: expect.stringMatching(/^vct_/),
          verifier_implementation_id: "vfi_passed0001",
          version_number: 1,
        },
      }),
    ]);
  });

  it("records the last validated upload in .svc/upload.json, as svc upload does (spec 4.2)", async () => {
    const dir = pkg(campaignFiles(3));
    const run = await draft(dir, "--shard-problems", "2");
    expect(run.code).toBe(0);
    const record = JSON.parse(readFileSync(join(dir, ".svc/upload.json"), "utf8"));
    expect(Object.keys(record)).toEqual(["upload_id", "plan_hash", "content_hash", "uploaded_at", "valid"]);
    const last = state(dir).shards[1]!;
    expect(record).toEqual({
      upload_id: last.upload_id,
      plan_hash: last.plan_hash,
      content_hash: last.content_hash,
      uploaded_at: "2030-01-02T03:04:05.000Z",
      valid: true,
    });
  });

  it("prints one line per problem with its action and revision", async () => {
    const dir = pkg(campaignFiles(2));
    const run = await draft(dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}create {2}p-0 revision 1 prb_/m);
    expect(run.stdout).toMatch(/^ {2}create {2}p-1 revision 1 prb_/m);
    expect(run.stdout).toContain("published: 2 problems in 1 shard (1 published): 2 create");
  });

  it("skips published shards whose hash is unchanged; --verify replays them as noop", async () => {
    const dir = pkg(campaignFiles(3));
    expect((await draft(dir, "--shard-problems", "2")).code).toBe(0);
    service.calls = [];

    const again = json((await draft(dir, "--json", "--shard-problems", "2")).stdout);
    expect(again).toMatchObject({ ok: true, published_shards: 0, skipped_shards: 2, counts: { noop: 3 } });
    expect(
      again.problems.every(
        (p: { action: string; revision_number: number }) => p.action === "noop" && p.revision_number === 1,
      ),
    ).toBe(true);
    expect(again.campaign.action).toBe("reuse");
    expect(service.calls).toEqual([]);

    const verify = json((await draft(dir, "--json", "--verify", "--shard-problems", "2")).stdout);
    expect(verify).toMatchObject({
      ok: true,
      published_shards: 2,
      skipped_shards: 0,
      counts: { noop: 3, create: 0 },
    });
    expect(service.calls.filter((c) => c === "publish_authoring_upload")).toHaveLength(2);
  });

  it("revises an edited statement to revision 2 and updates a changed title without a revision", async () => {
    const dir = pkg(campaignFiles(3));
    await draft(dir, "--shard-problems", "1");
    writeFileSync(join(dir, "problems/d-2/statement.md"), "# p-1\n\nA changed task.\n");
    const revised = json((await draft(dir, "--json", "--shard-problems", "1")).stdout);
    expect(revised).toMatchObject({ published_shards: 1, skipped_shards: 2, counts: { revise: 1, noop: 2 } });
    expect(revised.problems.find((p: { slug: string }) => p.slug === "p-1")).toMatchObject({
      action: "revise",
      revision_number: 2,
    });

    const problemJson = join(dir, "problems/d-3/problem.json");
    writeFileSync(
      problemJson,
      JSON.stringify({ ...json(readFileSync(problemJson, "utf8")), title: "Renamed" }),
    );
    const updated = json((await draft(dir, "--json", "--shard-problems", "1")).stdout);
    expect(updated.problems.find((p: { slug: string }) => p.slug === "p-0")).toMatchObject({
      action: "update",
      revision_number: 1,
    });
    expect(updated.counts).toMatchObject({ update: 1, noop: 2 });
  });

  it("stops with exit 1 naming a conflict on another user's slug, publishing nothing of that shard", async () => {
    const theirs = pkg(campaignFiles(1));
    expect((await svcWith(deps("usr_bob"), ["draft", theirs])).code).toBe(0);
    const mine = pkg(campaignFiles(2));
    const run = await draft(mine);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("conflict p-0: the slug p-0 belongs to another user");
    expect(state(mine).shards[0]).toMatchObject({ status: "invalid" });
    expect(service.problems.has("p-1")).toBe(false);

    const asJson = json((await draft(mine, "--json")).stdout);
    expect(asJson.ok).toBe(false);
    expect(asJson.error).toMatchObject({ kind: "invalid", conflicts: [{ slug: "p-0" }] });
  });

  it("stops with exit 1 on lint errors, printed like svc lint, without calling the service", async () => {
    const files = campaignFiles(1);
    delete files["problems/d-1/statement.md"];
    const run = await draft(pkg(files));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[missing_file]");
    expect(service.calls).toEqual([]);
  });

  it("publishes a standalone problem package as one shard", async () => {
    const run = await draft(pkg(scaffoldPackage({ slug: "solo", campaign: false })), "--json");
    expect(json(run.stdout)).toMatchObject({
      ok: true,
      campaign: null,
      planned_shards: 1,
      counts: { create: 1 },
    });
  });
});

describe("svc draft retries", () => {
  it("retries a transient failure with waits of 2, 4 and 8 s and then succeeds", async () => {
    const dir = pkg(campaignFiles(1));
    service.inject("request_authoring_upload", service.transient(), service.transient());
    service.inject("put", service.transient());
    const run = await draft(dir);
    expect(run.code).toBe(0);
    expect(sleeps).toEqual([2000, 4000, 2000]);
    expect(run.stderr).toContain("retrying in 2.0 s");
    expect(state(dir).shards[0]!.attempts).toBe(7);
  });

  it("gives up after 5 attempts with exit 1, and a rerun resumes from the last step that succeeded", async () => {
    const dir = pkg(campaignFiles(1));
    service.inject("validate_authoring_upload", ...Array.from({ length: 5 }, () => service.transient()));
    const run = await draft(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("validate kept failing");
    expect(sleeps).toEqual([2000, 4000, 8000, 16000]);
    expect(state(dir).shards[0]).toMatchObject({ status: "uploaded", error: { code: "http" } });

    service.calls = [];
    expect((await draft(dir)).code).toBe(0);
    expect(service.calls).toEqual(["validate_authoring_upload", "publish_authoring_upload"]);
  });

  it("answers stale_plan_hash with exactly one fresh upload, validate and publish", async () => {
    const dir = pkg(campaignFiles(1));
    service.inject("publish_authoring_upload", service.toolError("stale_server_state"));
    expect((await draft(dir)).code).toBe(0);
    expect(service.calls.filter((c) => c === "request_authoring_upload")).toHaveLength(2);

    const other = pkg(campaignFiles(1, { campaign: "other-campaign", statement: () => "# other\n\nx\n" }));
    service.inject(
      "publish_authoring_upload",
      service.toolError("stale_plan_hash"),
      service.toolError("stale_plan_hash"),
    );
    const run = await draft(other);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("stale again after a fresh upload [stale_plan_hash]");
  });

  it("does not retry a refusal, and exits 1 naming it", async () => {
    const dir = pkg(campaignFiles(1));
    service.inject(
      "publish_authoring_upload",
      service.toolError("forbidden", "the author capability is needed"),
    );
    const run = await draft(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("publish was refused [forbidden]: the author capability is needed");
    expect(sleeps).toEqual([]);
  });
});

describe("svc draft state and options", () => {
  it("--fresh ignores the state and replays every shard", async () => {
    const dir = pkg(campaignFiles(2));
    await draft(dir);
    const fresh = json((await draft(dir, "--json", "--fresh")).stdout);
    expect(fresh).toMatchObject({ published_shards: 1, skipped_shards: 0, counts: { noop: 2 } });
  });

  it("ignores a state written for another server", async () => {
    const dir = pkg(campaignFiles(2));
    await draft(dir);
    const elsewhere = await svcWith(deps("usr_ada", { SVC_BASE_URL: "http://other.test" }), [
      "draft",
      dir,
      "--json",
    ]);
    expect(json(elsewhere.stdout)).toMatchObject({ published_shards: 1, skipped_shards: 0 });
  });

  it("survives a damaged state file by replaying", async () => {
    const dir = pkg(campaignFiles(1));
    await draft(dir);
    writeFileSync(join(dir, ".svc/publish-state.json"), "{ not json");
    expect(json((await draft(dir, "--json")).stdout)).toMatchObject({ ok: true, published_shards: 1 });
    expect(state(dir).version).toBe(1);
  });

  it("refuses bad shard ceilings and a missing credential with exit 2", async () => {
    const dir = pkg(campaignFiles(1));
    for (const flags of [
      ["--shard-problems", "0"],
      ["--shard-problems", "301"],
      ["--shard-bytes", "1e6"],
    ]) {
      const run = await draft(dir, ...flags);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(flags[0]);
    }
    const anonymous = await svcWith(deps("usr_ada", { SVC_TOKEN: undefined }), ["draft", dir]);
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toContain("svc login --token <token> --server <url>");
    expect(anonymous.stderr).toContain("SVC_TOKEN");
  });

  it("refuses a problem too large for any shard with exit 1", async () => {
    const run = await draft(pkg(campaignFiles(2)), "--shard-bytes", "500");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("cannot shard the package");
  });

  it("draws a progress bar on stderr only when stderr is a terminal", async () => {
    const dir = pkg(campaignFiles(2));
    const tty = await svcWith(deps(), ["draft", dir, "--shard-problems", "1"], { progress: true });
    expect(tty.stderr).toContain("\r");
    expect(tty.stderr).toContain("2/2 shards");
    const piped = await draft(dir, "--verify");
    expect(piped.stderr).not.toContain("\r");
  });

  it("svc publish is identical to svc draft", async () => {
    const run = await svcWith(deps(), ["publish", pkg(campaignFiles(1)), "--json"]);
    expect(json(run.stdout)).toMatchObject({ ok: true, counts: { create: 1 } });
  });
});
