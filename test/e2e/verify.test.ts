import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { detectSandbox, openServiceClient } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { svcWith } from "../../app/test/cli/support-run.ts";
import { runImplementationConformance } from "../../server/src/conformance/run-implementation-conformance.ts";
import type { Services } from "../../server/src/core/services/services.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { resolveBinding } from "../../server/src/verification/resolve-binding.ts";
import { fixturePackage } from "../../server/test/authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { testServices } from "../../server/test/support/test-services.ts";

/**
 * `svc verify` against the real service: an author publishes lint fixture packages with `svc draft`
 * and unlists them (readable by name), the post-publication conformance runs, and a solver's `svc verify` (in process,
 * the real command) runs the sandbox stages on local files: a builtin stage, a `./checker.py`
 * script stage (bwrap or Docker; skipped without either, except under CI=true where it fails), a
 * linked slot and a sealed slot, each skipped with a note. Nothing is submitted and no quota used.
 */
describeWithDatabase("svc verify against the service", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: ReturnType<typeof buildApp>;
  let url: string;
  let home: string;
  const tokens: Record<string, string> = {};
  const cleanup: Array<() => void> = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = buildApp(services);
    url = await app.listen({ host: "127.0.0.1", port: 0 });
    home = mkdtempSync(join(tmpdir(), "svc-e2e-verify-home-"));
    const ada = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: ada.id, capability: "author" });
    tokens.ada = (await issueToken(db.sql, "ada", ["read", "contribute"])).token;
    await addUser(db.sql, { handle: "sol" });
    tokens.sol = (await issueToken(db.sql, "sol", ["read", "contribute"])).token;
  });

  afterAll(async () => {
    await app?.close();
    for (const fn of cleanup) fn();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const env = (handle: string) => ({
    SVC_BASE_URL: url,
    SVC_TOKEN: tokens[handle],
    XDG_CONFIG_HOME: home,
    SVC_PYTHON_IMAGE: process.env.SVC_PYTHON_IMAGE,
    SVC_SANDBOX: process.env.SVC_SANDBOX,
    DOCKER_HOST: process.env.DOCKER_HOST,
  });
  const svcAs = (handle: string, ...argv: string[]) =>
    svcWith({ env: env(handle), sleep: async () => {} }, argv);

  /** A lint fixture package under `slug`, written to a temporary directory. */
  const packageDir = (fixture: string, slug: string): string => {
    const root = mkdtempSync(join(tmpdir(), "svc-e2e-verify-"));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    const dir = join(root, slug);
    for (const [path, content] of Object.entries(fixturePackage(fixture))) {
      const text =
        path === "problem.json"
          ? JSON.stringify({ ...JSON.parse(Buffer.from(content).toString("utf8")), slug })
          : content;
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };

  /** A local artifact file. */
  const artifact = (name: string, text: string): string => {
    const root = mkdtempSync(join(tmpdir(), "svc-e2e-artifact-"));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    writeFileSync(join(root, name), text);
    return join(root, name);
  };

  /**
   * `svc draft` as ada, then the problem unlisted so the solver may read it by name; `code` 3 when
   * the package's checker fails its own fixtures (published all the same, docs/cli.md).
   */
  const publish = async (fixture: string, slug: string, code = 0): Promise<void> => {
    const draft = await svcAs("ada", "draft", packageDir(fixture, slug));
    expect(draft.code, draft.stderr).toBe(code);
    await unlist(slug);
  };

  /** Makes ada's problem unlisted: readable by any signed-in user who names it. */
  const unlist = async (slug: string): Promise<void> => {
    const client = openServiceClient({ server: url, token: tokens.ada! });
    try {
      const { snapshot } = await client.callTool("get_work_management", { work: { problem: slug } });
      await client.callTool("set_work_visibility", {
        work: { problem: slug },
        visibility: "unlisted",
        expected_snapshot: snapshot,
      });
    } finally {
      await client.close();
    }
  };

  /** The post-publication conformance job of every implementation of the problem's contract. */
  const runConformance = async (slug: string): Promise<string[]> => {
    const rows = await db.sql<{ id: string }[]>`
      select vi.id from verifier_implementations vi
      join problem_revisions pr on pr.verifier_contract_id = vi.verifier_contract_id
      join problems p on p.id = pr.problem_id where p.slug = ${slug}`;
    const statuses: string[] = [];
    for (const row of rows) {
      const outcome = await runImplementationConformance(services, row.id);
      if (outcome.kind !== "skipped")
        statuses.push(outcome.kind === "checked" ? outcome.status : outcome.kind);
    }
    return statuses;
  };

  const noSubmissions = async () => {
    const [counts] = await db.sql<{ submissions: number; runs: number }[]>`
      select (select count(*)::int from submissions) as submissions,
        (select count(*)::int from verification_runs) as runs`;
    expect(counts).toEqual({ submissions: 0, runs: 0 });
  };

  it("1. a builtin stage: never runs a pending implementation; verified exits 0, refuted exits 1", async () => {
    await publish("valid-builtin-sat", "verify-sat");
    const good = artifact("good.txt", "v 1 -2 3 0\n");
    const bad = artifact("bad.txt", "-1 2 -3 0\n");

    // Before the conformance job ran, the only implementation is pending: the preflight does not use it.
    const early = await svcAs("sol", "verify", "verify-sat", "--artifact", `assignment=${good}`);
    expect(early.code).toBe(1);
    expect(early.stdout).toMatch(
      /^sat_check \(sandbox\): not run: implementation version 1 is still running/m,
    );

    expect(await runConformance("verify-sat")).toEqual(["passed"]);
    const verified = await svcAs("sol", "verify", "verify-sat", "--artifact", `assignment=${good}`);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^sat_check \(sandbox v1\): verified \[builtin/m);
    expect(verified.stdout).toMatch(
      /^result: verified \(local preflight: nothing submitted, no quota used\)$/m,
    );

    const refuted = await svcAs("sol", "verify", "verify-sat", "--artifact", `assignment=${bad}`, "--json");
    expect(refuted.code).toBe(1);
    const report = JSON.parse(refuted.stdout);
    expect(report).toMatchObject({ ok: false, result: "refuted", revision: 1, submitted: false });
    expect(report.stages).toEqual([
      expect.objectContaining({ stage_key: "sat_check", ran: true, result: "refuted", backend: "builtin" }),
    ]);

    // Usage: a role the contract does not require, and a missing file.
    expect((await svcAs("sol", "verify", "verify-sat", "--artifact", `answer=${good}`)).code).toBe(2);
    expect((await svcAs("sol", "verify", "verify-sat", "--artifact", "assignment=/nonexistent")).code).toBe(
      2,
    );
    await noSubmissions();
  });

  it("2. a ./checker.py script stage runs in the local sandbox: right answer 0, wrong answer 1", async (context) => {
    const engines = await services.sandbox.engines();
    const server = await resolveBinding(db.sql, engines, "svc-runtime/python:1");
    const local = await detectSandbox({ env: env("sol") });
    if (server.kind !== "ready" || local.binding === null) {
      const why = `no bwrap or Docker here (service: ${server.kind}; svc: ${local.description})`;
      if (process.env.CI === "true") throw new Error(`a sandbox is required in CI: ${why}`);
      context.skip(why);
    }
    await publish("valid-script", "verify-root");
    expect(await runConformance("verify-root")).toEqual(["passed"]);

    const right = await svcAs(
      "sol",
      "verify",
      "verify-root",
      "--artifact",
      `answer=${artifact("a.txt", "1234\n")}`,
    );
    expect(right.code, right.stdout + right.stderr).toBe(0);
    expect(right.stdout).toMatch(
      /^check_answer \(sandbox v1\): verified \[(bwrap|docker), \d+ ms\]: 1234 squared/m,
    );

    const wrong = await svcAs(
      "sol",
      "verify",
      "verify-root",
      "--artifact",
      `answer=${artifact("a.txt", "1235\n")}`,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/^check_answer \(sandbox v1\): refuted .*1235 squared is 1525225/m);
    expect(wrong.stdout).toMatch(/^result: refuted/m);
    await noSubmissions();
  });

  it("3. a linked slot is skipped with a note, and the stage runs without it as the service would", async () => {
    // Its contract document is verify-sat's, so the implementation (and its passed conformance) is shared.
    await publish("valid-linked-binding", "verify-linked");
    expect(await runConformance("verify-linked")).not.toContain("failed");
    const run = await svcAs(
      "sol",
      "verify",
      "verify-linked",
      "--artifact",
      `assignment=${artifact("a.txt", "1 -2 3\n")}`,
    );
    expect(run.stdout).toContain(
      '  note: linked slot "instance" skipped: sandbox stages never mount a linked slot',
    );
    // The builtin reads its instance from the slot the service never mounts either.
    expect(run.stdout).toMatch(/^sat_check \(sandbox v1\): inconclusive/m);
    expect(run.code).toBe(1);
    await noSubmissions();
  });

  it("4. a failed implementation is never run; a stage mounting a sealed slot is not run, with a note; the quota is untouched", async () => {
    const assignment = artifact("a.txt", "1 -2 3\n");
    // 1. valid-sealed's own "falsifying" fixture is satisfied by its public instance: conformance fails.
    await publish("valid-sealed", "verify-sealed-failed", 3);
    expect(await runConformance("verify-sealed-failed")).toEqual(["failed"]);
    const failed = await svcAs(
      "sol",
      "verify",
      "verify-sealed-failed",
      "--artifact",
      `assignment=${assignment}`,
    );
    expect(failed.stdout).toMatch(
      /^sat_check \(sandbox\): inconclusive: stage `sat_check` has no implementation whose conformance fixtures passed/m,
    );
    expect(failed.code).toBe(1);

    // 2. With a falsifying fixture that falsifies (svc lint --fix restates its hash), conformance passes.
    const dir = packageDir("valid-sealed", "verify-sealed");
    writeFileSync(join(dir, "fixtures", "bad.txt"), "v -1 -2 -3 0\n");
    expect((await svcAs("ada", "lint", dir, "--fix")).code).toBe(0);
    const draft = await svcAs("ada", "draft", dir);
    expect(draft.code, draft.stderr).toBe(0);
    await unlist("verify-sealed");
    expect(await runConformance("verify-sealed")).toEqual(["passed"]);

    const allowance = async () => {
      const client = openServiceClient({ server: url, token: tokens.sol! });
      try {
        return (await client.callTool("get_problem", { problem: "verify-sealed" })).submission_allowance;
      } finally {
        await client.close();
      }
    };
    const before = await allowance();
    expect(before).not.toBeNull();

    // 3. The only stage mounts the sealed instance: skipped with the note, nothing checked here.
    const run = await svcAs("sol", "verify", "verify-sealed", "--artifact", `assignment=${assignment}`);
    expect(run.stdout).toContain(
      '  note: sealed slot "instance" skipped: its bytes are not readable until it is unsealed',
    );
    expect(run.stdout).toMatch(
      /^sat_check \(sandbox v1\): not run: the stage mounts a sealed slot, so it runs only on the service$/m,
    );
    expect(run.stdout).toMatch(/^result: not checked: no stage could run here/m);
    expect(run.code).toBe(1);

    expect(await allowance()).toEqual(before);
    await noSubmissions();
  });
});
