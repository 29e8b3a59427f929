import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Runner } from "graphile-worker";
import { afterAll, expect, it } from "vitest";
import { releaseDeadWorkersJobs, WORKER_DEAD_MS } from "../../src/core/jobs/worker-liveness.ts";
import { sandboxBudgetFromEnv } from "../../src/core/services/sandbox-budget.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { getVerification } from "../../src/verification/get-verification.ts";
import { readWaitingStages } from "../../src/verification/waiting-stages.ts";
import { fixturePackage, newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { publishProblem, seedSubmission } from "../verification/support/verification-harness.ts";

/** valid-builtin-sat under its own slug and Contract title, so its implementation is new and pending. */
function pendingSat(slug: string) {
  const files = fixturePackage("valid-builtin-sat");
  const problem = JSON.parse(Buffer.from(files["problem.json"]!).toString());
  problem.slug = slug;
  const contract = JSON.parse(Buffer.from(files["verifier-contract.json"]!).toString());
  contract.title = `Satisfying assignment, ${slug}`;
  return {
    ...files,
    "problem.json": JSON.stringify(problem),
    "verifier-contract.json": JSON.stringify(contract),
  };
}

describeWithDatabase("recovery of every job", () => {
  const db = useTestDatabase();
  const runners: Runner[] = [];
  afterAll(async () => {
    for (const runner of runners) await runner.stop();
  });

  it("evil/kill-9-during-conformance: a worker killed mid-fixture leaves the implementation pending, whole, and a fresh worker checks it", async () => {
    const blobDir = mkdtempSync(join(tmpdir(), "svc-recovery-blobs-"));
    const services = testServices(db.sql, { blobDir });
    const author = await newAuthor(db.sql);
    const published = await publishProblem(services, author, pendingSat("killed-conformance"));
    const implementationId = published.implementation_ids[0]!;

    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, "support/hanging-conformance-worker.ts"), db.url, blobDir],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    const started = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("started")) resolve();
      });
    });
    await started;
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));

    // Nothing half-written: the implementation is pending as published, its job locked by the dead worker.
    const [implementation] = await db.sql<{ conformance: Record<string, unknown> }[]>`
      select conformance from verifier_implementations where id = ${implementationId}`;
    expect(implementation!.conformance).toMatchObject({
      status: "pending",
      checked_at: null,
      fixtures_total: 0,
      fixtures_passed: 0,
      failures: [],
    });
    const [job] = await db.sql<{ locked_by: string | null }[]>`
      select locked_by from graphile_worker.jobs where key = ${`conformance:${implementationId}`}`;
    expect(job!.locked_by).not.toBeNull();

    // The dead worker's heartbeat is fresh yet: nothing is released before the bound.
    expect(await releaseDeadWorkersJobs(db.sql, new Date())).toEqual([]);
    const later = new Date(Date.now() + WORKER_DEAD_MS + 1000);
    expect(await releaseDeadWorkersJobs(db.sql, later)).toEqual([job!.locked_by]);
    const [released] = await db.sql<{ locked_by: string | null }[]>`
      select locked_by from graphile_worker.jobs where key = ${`conformance:${implementationId}`}`;
    expect(released!.locked_by).toBeNull();

    runners.push(await startWorker(services, { concurrency: 1, pollInterval: 100 }));
    let status = "pending";
    for (let poll = 0; poll < 600 && status === "pending"; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [row] = await db.sql<{ status: string }[]>`
        select conformance->>'status' as status from verifier_implementations where id = ${implementationId}`;
      status = row!.status;
    }
    expect(status).toBe("passed");
    // The next test needs a database no worker serves.
    await runners.pop()!.stop();
  });

  it("a live worker's job held past the dead-worker bound is not released: the id its jobs are locked with beats", async () => {
    const services = testServices(db.sql);
    const deadAfterMs = 2_000;
    let runs = 0;
    let finish = () => {};
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const runner = await startWorker(services, {
      concurrency: 1,
      pollInterval: 100,
      deadAfterMs,
      tasks: {
        hold_past_the_bound: async () => {
          runs += 1;
          started();
          await held;
        },
      },
    });
    runners.push(runner);
    await db.sql`select graphile_worker.add_job('hold_past_the_bound', '{}'::json, job_key => 'held')`;
    await running;
    try {
      // 1. The job is held for twice the bound while the worker beats (every deadAfterMs / 6).
      await new Promise((resolve) => setTimeout(resolve, 2 * deadAfterMs));
      // 2. Neither a sweep nor the worker's own heartbeats released it: one run, still locked.
      expect(await releaseDeadWorkersJobs(db.sql, new Date(), deadAfterMs)).toEqual([]);
      const [job] = await db.sql<{ locked_by: string | null }[]>`
      select locked_by from graphile_worker.jobs where key = 'held'`;
      expect(job!.locked_by).not.toBeNull();
      const [beat] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from worker_heartbeats where worker_id = ${job!.locked_by}`;
      expect(beat!.n).toBe(1);
      expect(runs).toBe(1);
    } finally {
      finish();
    }
    await runners.pop()!.stop();
  });

  it("evil/pending-forever: a stage on a pending implementation says so in its record, then ends inconclusive after SVC_STAGE_WAIT_SECONDS", async () => {
    let now = new Date();
    const services = testServices(db.sql, {
      clock: () => now,
      sandboxBudget: sandboxBudgetFromEnv({ SVC_STAGE_WAIT_SECONDS: "60" }),
    });
    const author = await newAuthor(db.sql);
    const solver = await newUser(db.sql);
    const pending = await publishProblem(services, author, pendingSat("never-checked"));
    const { verification_run_id: runId } = await seedSubmission(services, solver, pending, [
      { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0" },
    ]);
    const read = () =>
      getVerification(
        db.sql,
        { userId: solver.user.id, isAdministrator: false },
        runId,
        "http://svc.test",
        now,
      );

    expect((await executeVerificationRun(services, runId)).kind).toBe("waiting");
    expect(await readWaitingStages(db.sql, runId)).toEqual([
      {
        stage_key: "sat_check",
        kind: "sandbox",
        status: "queued",
        evidence_md: "waiting: stage sat_check's implementation is still running its conformance fixtures",
      },
    ]);

    now = new Date(Date.now() + 61_000);
    expect(await executeVerificationRun(services, runId)).toEqual({
      kind: "finished",
      result: "inconclusive",
    });
    const run = await read();
    expect(run).toMatchObject({ status: "finished", result: "inconclusive" });
    // It never ran a mechanism: the record lists no stage, and its evidence says why.
    expect(run.stage_results).toEqual([]);
    expect(run.evidence_md).toContain(
      "stage sat_check's implementation is still running its conformance fixtures; the run waited 60 s (SVC_STAGE_WAIT_SECONDS) and gave up",
    );
  });
});
