import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliDeps, openServiceClient } from "@svc/app";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import { svcWith, writePackage } from "../../app/test/cli/support-run.ts";
import { campaignFiles } from "../../app/test/client/support/campaign-files.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { startWorker } from "../../server/src/edges/worker/start-worker.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { testServices } from "../../server/test/support/test-services.ts";

/**
 * The CLI against the real service: `svc draft`, `svc upload` and `svc whoami` run in process
 * (and once as the binary) against buildApp listening on a loopback port, over MCP and the
 * signed PUT, on a fresh database.
 */
describeWithDatabase("svc draft against the service", () => {
  const db = useTestDatabase();
  let app: ReturnType<typeof buildApp>;
  let services: ReturnType<typeof testServices>;
  let url: string;
  let home: string;
  const tokens: Record<string, string> = {};
  const cleanup: Array<() => void> = [];

  // A worker, as in any deployment: svc draft waits for the sandboxed fixtures validation queues.
  let worker: Runner;

  beforeAll(async () => {
    services = testServices(db.sql);
    worker = await startWorker(services, { concurrency: 1, pollInterval: 100 });
    app = buildApp(services);
    url = await app.listen({ host: "127.0.0.1", port: 0 });
    home = mkdtempSync(join(tmpdir(), "svc-e2e-home-"));
    for (const handle of ["ada", "bob"]) {
      const user = await addUser(db.sql, { handle });
      await grantCapability(db.sql, { userId: user.id, capability: "author" });
      tokens[handle] = (await issueToken(db.sql, handle, ["read", "contribute"])).token;
    }
  });

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    for (const fn of cleanup) fn();
    rmSync(home, { recursive: true, force: true });
  });

  /** The CLI's waits end when the worker has no queued fixtures left: the next poll reads them. */
  const untilFixturesRan = async () => {
    for (;;) {
      const [row] = await db.sql<{ count: number }[]>`
        select count(*)::int as count from graphile_worker.jobs where task_identifier = 'validation_conformance'`;
      if (row!.count === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const deps = (handle = "ada"): Partial<CliDeps> => ({
    env: { SVC_BASE_URL: url, SVC_TOKEN: tokens[handle], XDG_CONFIG_HOME: home },
    sleep: untilFixturesRan,
  });
  const svc = (...argv: string[]) => svcWith(deps(), argv);
  const svcAs = (handle: string, ...argv: string[]) => svcWith(deps(handle), argv);
  const pkg = (files: Record<string, string> = {}) => {
    const written = writePackage(files);
    cleanup.push(written.remove);
    return written.dir;
  };
  const json = (text: string) => JSON.parse(text);

  it("whoami names the signed-in user", async () => {
    const run = await svc("whoami");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^handle +ada$/m);
    expect(run.stdout).toMatch(/^work_role +author$/m);
    expect(run.stdout).toMatch(/^scopes +read contribute/m);
    expect(run.stdout).toMatch(/^capabilities +author$/m);
  });

  it("creates, skips, replays, revises and updates a problem package", async () => {
    // 1. svc init scaffolds a package; svc draft creates revision 1.
    const dir = join(pkg(), "e2e-solo");
    expect((await svc("init", dir)).code).toBe(0);
    const created = await svc("draft", dir);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^ {2}create {2}e2e-solo revision 1 prb_/m);

    // 2. Unchanged: the shard is skipped, the problem reported as noop.
    const again = json((await svc("draft", dir, "--json")).stdout);
    expect(again).toMatchObject({
      ok: true,
      planned_shards: 1,
      published_shards: 0,
      skipped_shards: 1,
      counts: { noop: 1 },
    });
    expect(again.problems).toEqual([
      expect.objectContaining({ slug: "e2e-solo", action: "noop", revision_number: 1 }),
    ]);

    // 3. --verify replays the shard against the service: noop.
    const verified = json((await svc("draft", dir, "--json", "--verify")).stdout);
    expect(verified).toMatchObject({
      published_shards: 1,
      skipped_shards: 0,
      counts: { noop: 1, create: 0 },
    });

    // 4. A changed statement is a revise: revision 2.
    writeFileSync(
      join(dir, "statement.md"),
      "# Integer square root\n\nFind the positive root of 1522756, again.\n",
    );
    const revised = json((await svc("draft", dir, "--json")).stdout);
    expect(revised.problems[0]).toMatchObject({ action: "revise", revision_number: 2 });
    expect(revised.counts.revise).toBe(1);

    // 5. A changed title only is an update: no new revision.
    const problemFile = join(dir, "problem.json");
    writeFileSync(
      problemFile,
      JSON.stringify({ ...json(readFileSync(problemFile, "utf8")), title: "Renamed root" }),
    );
    const updated = json((await svc("publish", dir, "--json")).stdout);
    expect(updated.problems[0]).toMatchObject({ action: "update", revision_number: 2 });
    expect(updated.problems[0].problem_revision_id).toBe(revised.problems[0].problem_revision_id);

    // 6. Discovery finds it: search_problems and get_problem over MCP.
    const client = openServiceClient({ server: url, token: tokens.ada! });
    try {
      const search = await client.callTool("search_problems", { query: "root" });
      expect(JSON.stringify(search)).toContain("e2e-solo");
      const problem = await client.callTool("get_problem", { problem: "e2e-solo" });
      expect(JSON.stringify(problem)).toContain("Renamed root");
      expect(JSON.stringify(problem)).toContain(revised.problems[0].problem_revision_id);
    } finally {
      await client.close();
    }

    // 7. Another user's draft of the same slug stops with exit 1 naming the conflict.
    const theirs = join(pkg(), "e2e-solo");
    await svcAs("bob", "init", theirs);
    const conflict = await svcAs("bob", "draft", theirs);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/conflict e2e-solo: /);
  });

  it("publishes a campaign in several shards with --shard-problems 2", async () => {
    const dir = pkg(campaignFiles(7, { campaign: "e2e-campaign" }));
    const run = await svc("draft", dir, "--json", "--shard-problems", "2");
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
      campaign: { slug: "e2e-campaign", action: "create", campaign_id: expect.stringMatching(/^cmp_/) },
      problems_total: 7,
      planned_shards: 4,
      published_shards: 4,
      skipped_shards: 0,
      counts: { create: 7, update: 0, revise: 0, noop: 0, conflict: 0 },
    });
    expect(summary.shards.map((s: { status: string }) => s.status)).toEqual(Array(4).fill("published"));
    expect(summary.problems.every((p: { revision_number: number }) => p.revision_number === 1)).toBe(true);
    expect(summary.ids.verifier_contract_ids).toHaveLength(1);

    // The binary, as an author runs it: everything unchanged is skipped.
    const bin = join(import.meta.dirname, "../../app/bin/svc.js");
    const spawned = spawnSync(process.execPath, [bin, "draft", dir, "--json", "--shard-problems", "2"], {
      encoding: "utf8",
      env: { ...process.env, SVC_BASE_URL: url, SVC_TOKEN: tokens.ada, XDG_CONFIG_HOME: home },
    });
    expect(spawned.status).toBe(0);
    expect(json(spawned.stdout)).toMatchObject({ skipped_shards: 4, counts: { noop: 7 } });
  });

  it("svc upload validates without publishing, waits for the queued fixtures and records .svc/upload.json", async () => {
    const dir = pkg(campaignFiles(2, { campaign: "e2e-upload-only", prefix: "u" }));
    // The worker runs the sandboxed fixtures validation queued; the CLI's wait between polls ends
    // when the worker has no such job left, so the second poll reads the result, whatever the speed.
    const run = await svcWith(deps(), ["upload", dir]);
    expect(run.stderr).toBe("svc upload: conformance fixtures queued on the service; waited 0 s of 600\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("campaign e2e-upload-only: create");
    const record = json(readFileSync(join(dir, ".svc/upload.json"), "utf8"));
    expect(record).toMatchObject({
      valid: true,
      upload_id: expect.any(String),
      plan_hash: expect.stringMatching(/^sha256:/),
    });
  });
});
