import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { bwrapRuns } from "@svc/app";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import { fixturePackage, newAuthor } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

const runFile = promisify(execFile);
const SVC = fileURLToPath(new URL("../../../app/bin/svc.js", import.meta.url));
const hasBwrap = bwrapRuns();
if (!hasBwrap && process.env.CI === "true")
  throw new Error("CI=true but bubblewrap does not run: the script checker suite must run");

/** A checker that prints a line, then raises: a broken checker, as an author would publish one. */
const BROKEN = 'print("reading the answer")\nraise RuntimeError("the checker broke on purpose")\n';

/**
 * A checker that fails its own conformance fixtures is told where the author looks (issue 33,
 * Deliver 3), against the real service, a real worker and bubblewrap: `svc upload` and `svc draft`
 * print each failed fixture with the checker's traceback and exit 3, `svc draft` names the
 * implementation that stays current, the upload page and /work show them, and
 * get_verifier_contract carries the failures with the checker's output once publication's own
 * conformance run failed.
 */
(hasBwrap ? describeWithDatabase : describe.skip)("a checker failing its own fixtures", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let worker: Runner;
  let author: Principal;
  let token: string;
  let dir: string;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    worker = await startWorker(services, { concurrency: 2, pollInterval: 100 });
    author = await newAuthor(db.sql);
    token = (await issueToken(db.sql, author.user.handle, ["read", "contribute"])).token;
    dir = mkdtempSync(join(tmpdir(), "svc-broken-checker-"));
    for (const [path, bytes] of Object.entries(fixturePackage("valid-script"))) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), bytes);
    }
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await worker?.stop();
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const svc = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await runFile(process.execPath, [SVC, ...args, "--server", app.url], {
        encoding: "utf8",
        env: {
          ...process.env,
          SVC_TOKEN: token,
          HOME: mkdtempSync(join(tmpdir(), "svc-home-")),
          NO_COLOR: "1",
        },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  /** A page as a browser asks for it, with the author's token. */
  const page = async (path: string) => {
    const response = await fetch(`${app.url}${path}`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/html" },
    });
    expect(response.status).toBe(200);
    return await response.text();
  };

  /** Waits for the worker's conformance run of every implementation of the author's contracts. */
  const conformanceSettled = async () => {
    for (let i = 0; i < 300; i++) {
      const [row] = await db.sql<{ pending: number }[]>`
        select count(*)::int as pending from verifier_implementations where conformance->>'status' = 'pending'`;
      if (row!.pending === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("conformance never settled");
  };

  it("svc upload, svc draft, the upload page, /work and get_verifier_contract all report it with the checker's traceback", async () => {
    const good = await svc("draft", dir);
    expect(good.code).toBe(0);
    await conformanceSettled();
    const [v1] = await db.sql<
      { id: string }[]
    >`select id from verifier_implementations where version_number = 1`;

    writeFileSync(join(dir, "checker.py"), BROKEN);
    const upload = await svc("upload", dir);
    expect(upload.code).toBe(3);
    expect(upload.stdout).toContain("conformance: a checker failed its own fixtures");
    expect(upload.stdout).toMatch(
      /FAIL check_answer\/right_answer: expected verified, actual \w+ \(checker\.py\)/,
    );
    expect(upload.stdout).toContain("| Traceback (most recent call last):");
    expect(upload.stdout).toContain("| RuntimeError: the checker broke on purpose");
    expect(upload.stdout).toContain("| reading the answer");

    // The upload page shows the same: which fixture, expected, actual, why and the traceback.
    const { upload_id } = JSON.parse(readFileSync(join(dir, ".svc/upload.json"), "utf8"));
    const uploadPage = await page(`/work/uploads/${upload_id}`);
    expect(uploadPage).toContain('yes, but <strong class="error">2 conformance fixtures failed</strong>');
    expect(uploadPage).toMatch(/<tr data-fixture="right_answer">[\s\S]*?failed/);
    expect(uploadPage).toContain('<ul data-testid="conformance-failures">');
    expect(uploadPage).toContain("RuntimeError: the checker broke on purpose");

    const draft = await svc("draft", dir, "--json");
    expect(draft.code).toBe(3);
    const summary = JSON.parse(draft.stdout);
    expect(summary.ok).toBe(true);
    expect(summary.conformance_failures.map((f: { fixture: string }) => f.fixture).sort()).toEqual([
      "right_answer",
      "wrong_answer",
    ]);
    for (const failure of summary.conformance_failures) {
      expect(failure.log_tail).toContain("RuntimeError: the checker broke on purpose");
      expect(failure.stays_current).toMatchObject({ verifier_implementation_id: v1!.id, version_number: 1 });
    }

    await conformanceSettled();
    const client = await clientLines[0].connect(app.url, token);
    clients.push(client);
    const contract = envelopeOf(
      await client.callTool("get_verifier_contract", {
        verifier_contract_id: summary.conformance_failures[0].stays_current.verifier_contract_id,
      }),
    ) as { implementations: Array<Record<string, any>> };
    const v2 = contract.implementations.find((i) => i.version_number === 2)!;
    expect(v2.current).toBe(false);
    expect(v2.conformance.status).toBe("failed");
    expect(v2.conformance.failures).toHaveLength(2);
    for (const failure of v2.conformance.failures) {
      expect(failure).toMatchObject({
        stage_key: "check_answer",
        verifier_implementation_id: v2.id,
        expected_result: expect.stringMatching(/^(verified|refuted)$/),
      });
      expect(failure.detail).not.toBe("");
      expect(failure.log_tail).toContain("RuntimeError: the checker broke on purpose");
    }
    // /work shows the failed implementation with each fixture's why and the checker's output.
    const work = await page("/work");
    const row = work.slice(work.indexOf(`<tr data-implementation="${v2.id}">`));
    expect(row.slice(0, row.indexOf("</tr>"))).toMatch(
      /failed<ul data-testid="conformance-failures">[\s\S]*check_answer\/right_answer[\s\S]*RuntimeError: the checker broke on purpose/,
    );

    // The spec's record itself keeps its fixed shape; the output is kept beside it.
    const [record] = await db.sql`select conformance from verifier_implementations where id = ${v2.id}`;
    expect(Object.keys(record!.conformance.failures[0]).sort()).toEqual([
      "actual_result",
      "detail",
      "expected_result",
      "fixture_key",
    ]);
  }, 120_000);
});
