import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapRuns } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { svcWith, writePackage } from "../../../app/test/cli/support-run.ts";
import { addUser } from "../../src/users/add-user.ts";
import { grantCapability } from "../../src/users/grant-capability.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import { editJson, type Files, fixturePackage, SLOW_ANSWER } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type FleetProcess, migrateOnce, startFleetProcess } from "../support/fleet.ts";
import { createTestDatabase, describeWithDatabase, type TestDatabase } from "../support/test-database.ts";

const hasBwrap = bwrapRuns();
if (!hasBwrap && process.env.CI === "true") throw new Error("CI=true but bubblewrap does not run");
const describeIfBwrap = hasBwrap ? describeWithDatabase : describeWithDatabase.skip;

/** The checker's marker: present in its /output exactly while it sleeps on SLOW_ANSWER. */
const MARKER = "in-flight";

/**
 * valid-script whose checker, on SLOW_ANSWER, makes /output/in-flight, sleeps `seconds` and
 * removes it before it answers: the markers on the host's disks at any instant are the checkers
 * running then, counted from outside every process.
 */
function inFlightScript(seconds: number): Files {
  const base = fixturePackage("valid-script");
  const checker = Buffer.from(base["checker.py"]!).toString("utf8");
  const marked = checker.replace(
    "    if value * value == TARGET:",
    [
      `    if value == ${SLOW_ANSWER}:`,
      "        import os, time",
      `        open("/output/${MARKER}", "w").close()`,
      `        time.sleep(${seconds})`,
      `        os.remove("/output/${MARKER}")`,
      "    if value * value == TARGET:",
    ].join("\n"),
  );
  const files = editJson({ ...base, "checker.py": marked }, "verifier-contract.json", (contract) => {
    (contract.stages as { limits: Record<string, number> }[])[0]!.limits = { timeout_seconds: 60 };
  });
  return editJson(files, "problem.json", (problem) => {
    problem.slug = "in-flight";
  });
}

/** Every marker under `dir`, at most six folders down (a run's disk is four). */
function markersUnder(dir: string, depth = 0): number {
  if (depth > 6) return 0;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0; // removed while walked: a run that just ended
  }
  let found = 0;
  for (const entry of entries) {
    if (entry.isFile() && entry.name === MARKER) found++;
    else if (entry.isDirectory()) found += markersUnder(join(dir, entry.name), depth + 1);
  }
  return found;
}

/**
 * One host, one sandbox budget: `serve` (running jobs itself) and two worker processes, each
 * configured with SVC_SANDBOX_SLOTS=2 and able to take five jobs at once between them, never run
 * more than two checkers together; a worker killed with SIGKILL mid-run leaves no lease behind
 * that holds the others back.
 */
describeIfBwrap("one sandbox budget for every process on a host", () => {
  let db: TestDatabase;
  const members: FleetProcess[] = [];
  const temps: string[] = [];
  const cleanups: Array<() => void> = [];
  let client: TestClient | undefined;
  let env: Record<string, string>;
  let runRoot = "";

  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    const blobs = mkdtempSync(join(tmpdir(), "svc-host-budget-blobs-"));
    runRoot = mkdtempSync(join(tmpdir(), "svc-host-budget-runs-"));
    // The sandbox's user passes through to its run (enter, never list), as through a data directory.
    chmodSync(runRoot, 0o711);
    // The run folders stay to the test run's own cleanup, which unmounts what a killed process left.
    temps.push(blobs);
    env = {
      DATABASE_URL: db.url,
      SVC_BLOB_DIR: blobs,
      SVC_MIGRATE: "wait",
      SVC_SANDBOX: "bwrap",
      SVC_SANDBOX_SLOTS: "2",
      SVC_SANDBOX_PER_USER: "8",
      SVC_SANDBOX_POOL_SIZE: "0",
      SVC_SANDBOX_HOST: `budget-test-${process.pid}`,
      SVC_WORKER_DEAD_AFTER_S: "6",
    };
    await migrateOnce(env);
    const runDir = (name: string) => {
      const dir = join(runRoot, name);
      mkdirSync(dir, { mode: 0o711 });
      return dir;
    };
    members.push(startFleetProcess("web", { ...env, SVC_WORKERS: "1", SVC_SANDBOX_RUN_DIR: runDir("web") }));
    for (const name of ["w1", "w2"]) {
      members.push(
        startFleetProcess("worker", { ...env, SVC_WORKERS: "2", SVC_SANDBOX_RUN_DIR: runDir(name) }),
      );
    }
    await Promise.all(members.map((member) => member.ready));

    await addUser(db.sql, { handle: "ada" });
    await addUser(db.sql, { handle: "solver" });
    await grantCapability(db.sql, {
      userId: (await db.sql`select id from users where handle = 'ada'`)[0]!.id,
      capability: "author",
    });
    const adaToken = (await issueToken(db.sql, "ada", ["read", "contribute"])).token;
    const home = mkdtempSync(join(tmpdir(), "svc-host-budget-home-"));
    temps.push(home);
    const pkg = writePackage(inFlightScript(2));
    cleanups.push(pkg.remove);
    const published = await svcWith(
      {
        env: { SVC_BASE_URL: members[0]!.url, SVC_TOKEN: adaToken, XDG_CONFIG_HOME: home },
        sleep: async () => {},
      },
      ["draft", pkg.dir],
    );
    expect(published.code, published.stdout + published.stderr).toBe(0);
    await db.sql`update problems set visibility = 'unlisted' where slug = 'in-flight'`;
    await waitFor(async () => {
      const [row] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from verifier_implementations where conformance->>'status' = 'pending'`;
      return row!.n === 0;
    }, "the checker's conformance");
    client = await clientLines[0].connect(
      members[0]!.url,
      (await issueToken(db.sql, "solver", ["read", "contribute"])).token,
    );
  }, 180_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await Promise.all(members.map((member) => member.stop("SIGKILL")));
    await db?.drop();
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
    for (const cleanup of cleanups) cleanup();
  }, 30_000);

  const waitFor = async (check: () => Promise<boolean>, what: string, ms = 120_000) => {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  // biome-ignore lint/suspicious/noExplicitAny: tool envelopes are read field by field
  const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
    const result = await client!.callTool(name, args);
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(envelopeOf(result))}`);
    return envelopeOf(result);
  };
  /** Submits `count` slow answers; resolves with the run ids. */
  const flood = async (count: number): Promise<string[]> => {
    const { attempt } = await call("start_attempt", { problem: "in-flight" });
    const runs: string[] = [];
    for (let i = 0; i < count; i++) {
      const { artifact } = await call("upload_artifact", {
        attempt_id: attempt.id,
        filename: "answer.txt",
        content_text: `${SLOW_ANSWER}\n`,
      });
      const created = await call("create_submission", {
        attempt_id: attempt.id,
        artifacts: [{ role: "answer", artifact_id: artifact.id }],
      });
      runs.push(created.verification_run_id);
    }
    return runs;
  };
  /**
   * Samples the checkers in flight under the run folders of `names` every 20 ms until `runs`
   * finished; the most seen at once.
   */
  const peakWhile = async (runs: string[], names = ["web", "w1", "w2"]): Promise<number> => {
    let peak = 0;
    for (;;) {
      const now = names.reduce((sum, name) => sum + markersUnder(join(runRoot, name)), 0);
      peak = Math.max(peak, now);
      const [row] = await db.sql<{ open: number }[]>`
        select count(*)::int as open from verification_runs where id = any(${runs}) and status <> 'finished'`;
      if (row!.open === 0) return peak;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("1. ten slow runs over serve and two workers (five job slots) never run more than the host's two", async () => {
    const runs = await flood(10);
    const peak = await peakWhile(runs);
    expect(peak).toBe(2);
    const results = await db.sql<
      { result: string }[]
    >`select result from verification_runs where id = any(${runs})`;
    expect(results.map((row) => row.result)).toEqual(Array(10).fill("refuted"));
    // A lease is given back just after its run's verdict commits: on a loaded machine that can
    // trail the last verdict by a moment, so wait for it (bounded) rather than read it at once.
    await waitFor(async () => {
      const [leases] = await db.sql<{ n: number }[]>`select count(*)::int as n from sandbox_leases`;
      return leases!.n === 0;
    }, "every lease given back");
  }, 180_000);

  it("2. a worker killed with SIGKILL mid-run: its lease is void, and the host's two slots serve the rest", async () => {
    const runs = await flood(6);
    const worker = members[1]!;
    // Wait until the worker runs a checker under its lease, then kill it. Its checker dies with
    // it (bwrap's --die-with-parent), leaving its marker behind: only the live processes count.
    await waitFor(async () => markersUnder(join(runRoot, "w1")) > 0, "a checker on the first worker");
    await worker.stop("SIGKILL");
    const peak = await peakWhile(runs, ["web", "w2"]);
    expect(peak).toBe(2);
    const [leases] = await db.sql<{ n: number }[]>`select count(*)::int as n from sandbox_leases`;
    expect(leases!.n).toBe(0);
  }, 180_000);
});
