import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import type { Principal } from "../../src/users/principal.ts";
import { getVerification } from "../../src/verification/get-verification.ts";
import { STALL_MS, sweepStalledRuns } from "../../src/verification/sweep-stalled-runs.ts";
import type { VerificationRun } from "../../src/verification/verification-run.ts";
import { newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "./support/verification-harness.ts";

/** Polls until the run is finished (graphile-worker picks jobs up by LISTEN/NOTIFY or polling). */
async function finished(
  services: Services,
  viewer: Principal,
  runId: string,
  timeoutMs = 20_000,
): Promise<VerificationRun> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await getVerification(
      services.sql,
      { userId: viewer.user.id, isAdministrator: false },
      runId,
      "http://x",
      new Date(),
    );
    if (run.status === "finished") return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeWithDatabase("verification runs on graphile-worker", () => {
  const db = useTestDatabase();
  const blobDir = mkdtempSync(join(tmpdir(), "svc-worker-blobs-"));
  let services: Services;
  let solver: Principal;
  let sat: PublishedProblem;
  const runners: Runner[] = [];

  beforeAll(async () => {
    services = testServices(db.sql, { blobDir });
    const author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
  });
  afterAll(async () => {
    for (const runner of runners) await runner.stop();
  });

  const assignment = (text: string) => [
    { role: "assignment", filename: "a.txt", media_type: "text/plain", content: text },
  ];

  it("a worker killed mid-stage leaves the run to the sweep, and another worker finishes it", async () => {
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, "support/hanging-worker.ts"), db.url, blobDir],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let output = "";
    const started = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("started")) resolve();
      });
    });
    const { verification_run_id: runId } = await seedSubmission(
      services,
      solver,
      sat,
      assignment("v 1 2 -3 0"),
    );
    await started;
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));

    const [stalled] = await db.sql`select status from verification_runs where id = ${runId}`;
    expect(stalled!.status).toBe("running");
    // Not yet stalled by the clock: the sweep leaves it alone.
    expect(await sweepStalledRuns(services)).toEqual([]);
    const later = { ...services, clock: () => new Date(Date.now() + STALL_MS + 1000) };
    expect(await sweepStalledRuns(later)).toEqual([runId]);

    runners.push(await startWorker(services, { concurrency: 1, pollInterval: 100 }));
    const run = await finished(services, solver, runId);
    expect(run.result).toBe("verified");
    const [row] = await db.sql`select restarts from verification_runs where id = ${runId}`;
    expect(row!.restarts).toBe(1);
  });

  it("two workers finish twenty concurrent submissions, each run exactly once", async () => {
    runners.push(await startWorker(services, { concurrency: 2, pollInterval: 100 }));
    const seeded = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        seedSubmission(services, solver, sat, assignment(i % 2 ? "v 1 2 -3 0" : "v -1 -2 -3 0")),
      ),
    );
    const runs = await Promise.all(seeded.map((s) => finished(services, solver, s.verification_run_id)));
    expect(runs.map((r) => r.result)).toEqual(seeded.map((_, i) => (i % 2 ? "verified" : "refuted")));
    const stages = await db.sql`
      select verification_run_id, count(*)::int as n from verification_stage_results
      where verification_run_id = any(${seeded.map((s) => s.verification_run_id)}) group by 1`;
    expect(stages.every((row) => row.n === 1)).toBe(true);
    const [restarted] = await db.sql`
      select count(*)::int as n from verification_runs where id = any(${seeded.map((s) => s.verification_run_id)}) and restarts > 0`;
    expect(restarted!.n).toBe(0);
  });
});
