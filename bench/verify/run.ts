/**
 * bench/verify: builtin verification runs per second end to end, as a solver drives them:
 * create_submission (the Submission and its queued run in one transaction) -> a graphile-worker
 * picks the job up -> the builtin checker -> the run finished, with one and with two workers.
 *
 * Prints, in one run on one machine:
 * - the baseline: the same builtin checker called directly in process (runChecker on the same
 *   job), runs per second;
 * - end to end with 1 worker and with 2 workers (concurrency), runs per second, and each one's
 *   ratio to the baseline (the service's overhead: transactions, the queue, the run record);
 * - execution alone with 1 and with 2 workers: the same submissions all created first, only the
 *   workers timed (how the workers scale once creation does not share the cores with them).
 * - each end-to-end measurement is preceded by WARM_UP Submissions run untimed on its worker, so
 *   it measures the steady state, not the opening of connections.
 * - the service's statements per run (create_submission and the worker's execution, counted on the
 *   service's pool; graphile-worker's own two per job are apart): statements, not round trips,
 *   since a pipelined transaction (pipelinedTransaction) sends BEGIN, statements and COMMIT in one
 *   write;
 * - how fast the bench created the submissions meanwhile: close to the runs/s, creation bounds it;
 * - CPU per verdict beside each runs/s: this process's CPU time per run (creation and workers) and
 *   that of the PostgreSQL backends connected to the bench's database (pg_stat_activity and
 *   /proc/<pid>/stat, when the server runs on this machine), issue 38's goal being 2 ms; summary
 *   line `verify CPU per verdict 2 workers` against the builtin checker's own CPU per run.
 * Summary lines: `verify runs/s 2 workers` against 1 worker, `verify execution runs/s 2 workers`
 * against 1 worker, and `verify runs/s 1 worker` against the checker alone. BENCH_SUBMISSIONS submissions per measurement (default 200). Run with
 * `npm run bench:verify`.
 * The sandbox overhead (bwrap, docker vs bare python) is bench/verify/sandbox-overhead.ts.
 */

import { runChecker, sha256 } from "@svc/app";
import { pino } from "pino";
import postgres from "postgres";
import { uploadArtifact } from "../../server/src/artifacts/upload-artifact.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import type { ToolContext } from "../../server/src/edges/mcp/tools/tool.ts";
import { startWorker } from "../../server/src/edges/worker/start-worker.ts";
import { startAttempt } from "../../server/src/solving/start-attempt.ts";
import { createSubmission } from "../../server/src/submissions/create-submission.ts";
import { localSandboxRunner } from "../../server/src/verification/local-sandbox-runner.ts";
import { newAuthor, newUser } from "../../server/test/authoring/support/authoring-harness.ts";
import {
  passConformance,
  publishProblem,
} from "../../server/test/verification/support/verification-harness.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { printSummary } from "../support/measure.ts";
import { backendsCpu, backendsCpuSince } from "../support/postgres-cpu.ts";
import { waitForRunsFinished } from "../support/wait-for-runs.ts";

const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 200);
/** Execution alone runs this many times as many: at about a thousand runs/s, 200 took a fifth of a second. */
const ALONE_FACTOR = 5;
/**
 * Submissions run end to end, untimed, on each measurement's worker before it is timed: the pool
 * opens the connections the new concurrency needs, and a backend started inside the measurement
 * counted whole (its start-up and its first plans, 15-40 ms of PostgreSQL each, up to 0.4 ms per
 * verdict over 200 Submissions), though a running service opens its connections once.
 */
const WARM_UP = 40;
const log = pino({ level: "silent" });

const db = await benchDatabase();
// A second pool of the service's, counting the statements it sends while a measurement runs. Its
// `debug` hook makes postgres.js capture a stack trace per query (about a tenth of a millisecond
// each here), so only the statement count is measured on it; every other figure, CPU included, is
// measured on a plain pool like the service's own.
let statements = 0;
let counting = false;
const counted = postgres(db.url, {
  max: 20,
  onnotice: () => {},
  connection: { application_name: "svc", jit: "off" },
  debug: () => {
    if (counting) statements += 1;
  },
});
try {
  const openOn = (sql: postgres.Sql) =>
    openServices({
      sql,
      log,
      clock: () => new Date(),
      dataDir: db.dataDir,
      signingSecret: "bench-signing-secret-of-32-bytes",
      sandbox: localSandboxRunner({ backends: {} }),
    });
  const countedServices = await openOn(counted);
  const services = await openOn(db.sql);
  const author = await newAuthor(db.sql);
  const solver = await newUser(db.sql);
  const problem = await publishProblem(services, author, "valid-builtin-sat");
  await passConformance(db.sql, problem.verifier_contract_id);
  await db.sql`update problems set visibility = 'unlisted' where id = ${problem.problem_id}`;

  // Baseline: the checker alone, in process, on the same inputs.
  const instance = Buffer.from("p cnf 3 2\n1 -2 0\n2 3 0\n");
  const answer = Buffer.from("v 1 2 -3 0\n");
  const job = {
    stage_key: "sat_check",
    result_kind: "pass_fail" as const,
    implementation: {
      image_ref: "svc-builtin/sat-assignment-check:1",
      image_digest: sha256("svc-builtin/sat-assignment-check:1"),
      entrypoint: [],
      limits: { vcpu: 1, memory_mb: 512, disk_mb: 256, timeout_seconds: 60 },
      program: null,
    },
    artifacts: [
      {
        name: "assignment",
        filename: "a.txt",
        media_type: "text/plain",
        content_hash: sha256(answer),
        size_bytes: answer.length,
        bytes: answer,
      },
    ],
    reference: [
      {
        name: "instance",
        filename: "instance.cnf",
        media_type: "text/plain",
        content_hash: sha256(instance),
        size_bytes: instance.length,
        bytes: instance,
      },
    ],
    evidence_schema: null,
  };
  const baselineStart = performance.now();
  const baselineCpu = process.cpuUsage();
  const BASELINE_RUNS = 5000;
  for (let i = 0; i < BASELINE_RUNS; i++) await runChecker(job, { binding: null, backends: {} });
  const baseline = BASELINE_RUNS / ((performance.now() - baselineStart) / 1000);
  const checkerCpu = process.cpuUsage(baselineCpu);
  const checkerCpuMs = (checkerCpu.user + checkerCpu.system) / 1000 / BASELINE_RUNS;

  /**
   * Submits SUBMISSIONS answers while `concurrency` workers run them: runs per second until all
   * finished, submissions created per second, CPU ms per run. With `createFirst`, the answers are
   * all submitted before the workers start, and only their execution is timed.
   */
  async function endToEnd(
    concurrency: number,
    createFirst = false,
    on: typeof services = services,
  ): Promise<{ runs: number; created: number; cpuMs: number; postgresMs: number | null }> {
    const context: ToolContext = { services: on, principal: solver, baseUrl: "http://bench" };
    const attempts: Array<{ attempt_id: string; artifact_id: string }> = [];
    const count = createFirst ? SUBMISSIONS * ALONE_FACTOR : SUBMISSIONS;
    // Execution alone is not warmed up: its Submissions all exist before its worker starts.
    const warmUp = createFirst ? 0 : WARM_UP;
    for (let i = 0; i < count + warmUp; i++) {
      const { attempt } = await startAttempt(context.services, context, { problem: problem.problem_id });
      const { artifact } = await uploadArtifact(context.services, context, {
        attempt_id: attempt.id,
        filename: "a.txt",
        content_text: `v 1 2 -3 ${4 + i} 0\n`,
      });
      attempts.push({ attempt_id: attempt.id, artifact_id: artifact.id });
    }
    const submitAll = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (let i = from + lane; i < to; i += 4) {
            await createSubmission(context.services, context, {
              attempt_id: attempts[i]!.attempt_id,
              artifacts: [{ role: "assignment", artifact_id: attempts[i]!.artifact_id }],
            });
          }
        }),
      );
    if (createFirst) await submitAll(0, count);
    const worker = await startWorker(on, { concurrency, pollInterval: 50 });
    if (warmUp > 0) {
      await submitAll(count, count + warmUp);
      await waitForRunsFinished(db.sql);
    }
    statements = 0;
    counting = true;
    const cpu = process.cpuUsage();
    const postgresBefore = await backendsCpu(db.sql);
    const start = performance.now();
    if (!createFirst) await submitAll(0, count);
    const created = performance.now();
    await waitForRunsFinished(db.sql);
    const elapsed = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    counting = false;
    const postgresUsed = await backendsCpuSince(db.sql, postgresBefore);
    await worker.stop();
    return {
      runs: count / elapsed,
      created: count / ((created - start) / 1000),
      cpuMs: (used.user + used.system) / 1000 / count,
      postgresMs: postgresUsed === null ? null : postgresUsed / count,
    };
  }

  await endToEnd(1, false, countedServices);
  const perRun = statements / SUBMISSIONS;
  const endOne = await endToEnd(1);
  const endTwo = await endToEnd(2);
  const aloneOne = await endToEnd(1, true);
  const aloneTwo = await endToEnd(2, true);
  const one = endOne.runs;
  const two = endTwo.runs;
  const fmt = (n: number) => n.toFixed(1);
  console.log(`bench/verify on ${db.description}, ${SUBMISSIONS} submissions per measurement`);
  console.log(`baseline: builtin checker in process          ${fmt(baseline)} runs/s`);
  /** CPU per verdict, node and the database's backends together, as printed beside runs/s. */
  const perVerdict = (m: { cpuMs: number; postgresMs: number | null }) =>
    m.postgresMs === null
      ? `CPU/verdict ${m.cpuMs.toFixed(2)} ms node (PostgreSQL not on this machine)`
      : `CPU/verdict ${(m.cpuMs + m.postgresMs).toFixed(2)} ms (node ${m.cpuMs.toFixed(2)} + PostgreSQL ${m.postgresMs.toFixed(2)})`;
  console.log(
    `end to end, 1 worker  (create -> finished)   ${fmt(one)} runs/s   ${perVerdict(endOne)}   ratio to baseline ${(one / baseline).toFixed(4)}`,
  );
  console.log(
    `end to end, 2 workers (create -> finished)   ${fmt(two)} runs/s   ${perVerdict(endTwo)}   ratio to baseline ${(two / baseline).toFixed(4)}; 2 vs 1 worker ${(two / one).toFixed(2)}x`,
  );
  console.log(
    `execution alone, 1 worker                    ${fmt(aloneOne.runs)} runs/s   ${perVerdict(aloneOne)}`,
  );
  // Execution alone: what the workers do once creation no longer shares the cores with them.
  console.log(
    `execution alone, 1 / 2 workers (${SUBMISSIONS * ALONE_FACTOR} submitted first)   ${fmt(aloneOne.runs)} / ${fmt(aloneTwo.runs)} runs/s; 2 vs 1 worker ${(aloneTwo.runs / aloneOne.runs).toFixed(2)}x`,
  );
  console.log(`statements per run on the service's pool (create + execute, 1 worker): ${perRun.toFixed(1)}`);
  // When the submissions are created barely faster than runs finish, creation (on the same cores)
  // bounds the figure, not the workers.
  console.log(
    `submissions created while the workers ran: ${fmt(endOne.created)}/s (1 worker), ${fmt(endTwo.created)}/s (2 workers)`,
  );
  // CPU time depends less on the machine's load than runs/s: what a run costs this process.
  console.log(
    `CPU of this process (creation and workers) per run: ${endOne.cpuMs.toFixed(2)} ms (1 worker), ${endTwo.cpuMs.toFixed(2)} ms (2 workers)`,
  );
  if (endOne.postgresMs !== null && endTwo.postgresMs !== null) {
    // The backends of the bench's database only (pg_stat_activity, /proc): not the shared server's other work.
    console.log(
      `CPU of the database's PostgreSQL backends per run: ${endOne.postgresMs.toFixed(2)} ms (1 worker), ${endTwo.postgresMs.toFixed(2)} ms (2 workers)`,
    );
    printSummary({
      name: "verify CPU per verdict 2 workers",
      figure: endTwo.cpuMs + endTwo.postgresMs,
      baseline: checkerCpuMs,
      unit: "ms",
      baselineName: "builtin checker in process",
    });
  }
  printSummary({
    name: "verify runs/s 2 workers",
    figure: two,
    baseline: one,
    unit: "runs/s",
    baselineName: "1 worker",
  });
  printSummary({
    name: "verify execution runs/s 2 workers",
    figure: aloneTwo.runs,
    baseline: aloneOne.runs,
    unit: "runs/s",
    baselineName: "1 worker",
  });
  printSummary({
    name: "verify runs/s 1 worker",
    figure: one,
    baseline,
    unit: "runs/s",
    baselineName: "builtin checker in process",
  });
} finally {
  await counted.end({ timeout: 5 });
  await db.close();
}
