import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lintPackage, openDirectoryTree, scaffoldPackage } from "@svc/app";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignFiles } from "../../app/test/client/support/campaign-files.ts";
import { BUNDLE_PATH, buildBundle } from "../../lint-action/src/build-bundle.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { startWorker } from "../../server/src/edges/worker/start-worker.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { testServices } from "../../server/test/support/test-services.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = join(ROOT, BUNDLE_PATH);

interface ActionRun {
  code: number | null;
  stdout: string;
  summary: string;
  outputs: Record<string, string>;
}

/** Reads GITHUB_OUTPUT as the runner does: `name<<delimiter`, the value lines, the delimiter. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = lines[i]!.match(/^([^<]+)<<(.+)$/);
    if (!match) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== match[2]; i++) value.push(lines[i]!);
    outputs[match[1]!] = value.join("\n");
  }
  return outputs;
}

/**
 * Runs the committed bundle as GitHub runs a node24 action: `node lint-action/dist/index.js` in
 * the workspace, every input as `INPUT_<NAME>` (upper case, hyphen kept, defaults from
 * action.yml when not given), GITHUB_STEP_SUMMARY and GITHUB_OUTPUT as files.
 */
async function runAction(workspace: string, inputs: Record<string, string>): Promise<ActionRun> {
  const files = mkdtempSync(join(tmpdir(), "svc-action-files-"));
  const summary = join(files, "summary.md");
  const output = join(files, "output.txt");
  writeFileSync(summary, "");
  writeFileSync(output, "");
  const defaults = { path: ".", "server-url": "", token: "", publish: "false", "fail-on-warnings": "false" };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: output,
  };
  for (const [name, value] of Object.entries({ ...defaults, ...inputs }))
    env[`INPUT_${name.toUpperCase()}`] = value;
  // Asynchronously: the service some runs talk to answers from this very process.
  const child = spawn(process.execPath, [BUNDLE], { cwd: workspace, env });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const result = {
    code,
    stdout,
    summary: readFileSync(summary, "utf8"),
    outputs: parseOutputs(readFileSync(output, "utf8")),
  };
  rmSync(files, { recursive: true, force: true });
  return result;
}

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const under = (dir: string, files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).map(([p, t]) => [`${dir}/${p}`, t]));

let workspace: string;
beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), "svc-action-"));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe("the Action's bundled entry", () => {
  it("is the bundle the sources build today (run npm run build:action when this fails)", async () => {
    const fresh = await buildBundle({ write: false });
    expect(
      fresh === readFileSync(BUNDLE, "utf8"),
      "lint-action/dist/index.js is stale: run npm run build:action",
    ).toBe(true);
  }, 60_000);

  it("writes every problem slug to the job summary and the plan_hash to the outputs", async () => {
    const repo = join(workspace, "valid");
    writeFiles(repo, {
      ...under("problems/campaign", campaignFiles(3)),
      ...under("solo", scaffoldPackage({ slug: "solo", campaign: false })),
    });
    const run = await runAction(repo, {});
    expect(run.code, run.stdout).toBe(0);
    for (const slug of ["p-0", "p-1", "p-2", "solo"])
      expect(run.summary).toContain(`| \`${slug}\` | planned |`);
    expect(run.summary).toContain("### `problems/campaign`: 3 problems, lint clean");
    const solo = await lintPackage(await openDirectoryTree(join(repo, "solo")));
    expect(JSON.parse(run.outputs["plan-hashes"]!)).toMatchObject({ solo: solo.plan_hash });
    expect(run.outputs["plan-hash"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(run.outputs).toMatchObject({ ok: "true", packages: "2", problems: "4", errors: "0" });

    // One package named by `path`: its own plan_hash, exactly as svc lint computes it.
    const single = await runAction(repo, { path: "solo" });
    expect(single.code).toBe(0);
    expect(single.outputs["plan-hash"]).toBe(solo.plan_hash);
    expect(single.summary).toContain("### `solo`: 1 problem, lint clean");
  }, 60_000);

  it("exits non-zero with an error annotation on the offending file and line of a broken package", async () => {
    const repo = join(workspace, "broken");
    const files = under("pkgs/bad", scaffoldPackage({ slug: "bad", campaign: false }));
    const problem = JSON.parse(files["pkgs/bad/problem.json"]!);
    files["pkgs/bad/problem.json"] =
      `${JSON.stringify({ slug: problem.slug, title: problem.title, summary: problem.summary, priority_weight: "high" }, null, 2)}\n`;
    writeFiles(repo, files);
    const run = await runAction(repo, {});
    expect(run.code).not.toBe(0);
    expect(run.stdout).toMatch(/^::error file=pkgs\/bad\/problem\.json,line=5::\[schema_violation\] /m);
    expect(run.outputs).toMatchObject({ ok: "false", errors: "1", "plan-hash": "" });
    expect(run.summary).toContain("| `pkgs/bad/problem.json` | 5 | schema_violation |");
  }, 60_000);

  it("fails on warnings only when asked to", async () => {
    const repo = join(workspace, "warned");
    writeFiles(repo, { ...scaffoldPackage({ slug: "warned", campaign: false }), "notes.bin": "x" });
    expect((await runAction(repo, {})).code).toBe(0);
    const strict = await runAction(repo, { "fail-on-warnings": "true" });
    expect(strict.code).not.toBe(0);
    expect(strict.stdout).toMatch(/^::warning file=notes\.bin,line=1::\[ignored_file\] /m);
    expect(strict.outputs).toMatchObject({ ok: "false", warnings: "1" });
  }, 60_000);

  it("refuses publish without a server", async () => {
    const run = await runAction(join(workspace, "valid"), { publish: "true" });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain("publish: true needs server-url and token");
  });
});

describeWithDatabase("the Action's bundled entry against the service", () => {
  const db = useTestDatabase();
  let service: ReturnType<typeof buildApp>;
  let url: string;
  let token: string;
  let worker: Runner;

  beforeAll(async () => {
    // A worker, as in any deployment: the package's sandboxed fixtures are queued at validation.
    const services = testServices(db.sql);
    worker = await startWorker(services, { concurrency: 1, pollInterval: 100 });
    service = buildApp(services);
    url = await service.listen({ host: "127.0.0.1", port: 0 });
    const user = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    token = (await issueToken(db.sql, "ada", ["read", "contribute"])).token;
  });
  afterAll(async () => {
    await service?.close();
    await worker?.stop();
  });

  it("adds the reconciliation, publishes changed packages, then finds them unchanged", async () => {
    const repo = join(workspace, "live");
    writeFiles(repo, scaffoldPackage({ slug: "live", campaign: false }));
    // 1. The reconciliation only.
    const checked = await runAction(repo, { "server-url": url, token });
    expect(checked.code, checked.stdout).toBe(0);
    // The checker's fixtures are queued on the service at validation: the log says why it waits.
    expect(checked.stdout).toContain(
      ".: the service runs this package's conformance fixtures in its sandbox queue; waited 0 s of at most 600 s",
    );
    expect(checked.summary).toContain("| `live` | **create** | 1 |");
    expect(checked.outputs).toMatchObject({ create: "1", published: "0" });
    // 2. Published.
    const published = await runAction(repo, { "server-url": url, token, publish: "true" });
    expect(published.code, published.stdout).toBe(0);
    expect(published.summary).toMatch(/\| `\.` \| `live` \| create \| 1 \| `prb_/);
    expect(published.outputs).toMatchObject({ published: "1", ok: "true" });
    // 3. Unchanged: noop, nothing published.
    const again = await runAction(repo, { "server-url": url, token, publish: "true" });
    expect(again.summary).toContain("| `live` | **noop** | unchanged |");
    expect(again.outputs).toMatchObject({ noop: "1", published: "0" });
  }, 120_000);

  it("fails with an annotation at the checker's file when the checker fails its own fixtures", async () => {
    const repo = join(workspace, "broken-checker");
    writeFiles(repo, {
      ...scaffoldPackage({ slug: "broken-checker", campaign: false }),
      "checker.py":
        'import sys\n\ndef main():\n    raise RuntimeError("the checker broke on purpose")\n\nmain()\n',
    });
    const run = await runAction(repo, { "server-url": url, token, publish: "true" });
    expect(run.code).not.toBe(0);
    // At the line of checker.py its traceback names last, with the traceback in the message.
    expect(run.stdout).toMatch(
      /^::error file=checker\.py,line=4::\[conformance_failed\] check_answer\/right_answer: expected verified, actual /m,
    );
    expect(run.stdout).toContain("RuntimeError: the checker broke on purpose");
    expect(run.summary).toContain("| `checker.py` | 4 | conformance_failed |");
    // Published all the same, as svc draft does: the failed checker never becomes current.
    expect(run.outputs).toMatchObject({ ok: "false", published: "1" });
  }, 120_000);
});
