/**
 * bench/scale: how the fleet scales with its number of processes, as docs/deployment.md lays it
 * out: real `svc-server worker` and `svc-server serve` processes (server/test/support/fleet.ts)
 * over one PostgreSQL and one blob directory (the bucket's stand-in: on one host the store is not
 * what is measured).
 *
 * Prints, in one run on one machine:
 * - builtin verification runs per second end to end (create_submission -> finished, as
 *   bench/verify) with 1, 2 and 4 worker processes of one job each, in BENCH_ROUNDS rounds (default
 *   2; 1 2 4, then 4 2 1) summed per fleet size; the baseline is 1 process;
 *   beside each, the CPU per verdict of every process involved (this one creating, the workers,
 *   and the bench database's PostgreSQL backends, from /proc): on a shared machine it moves less
 *   than runs/s, and it says whether more processes cost more work or only wait;
 * - get_problem calls per second over MCP against 1 web replica directly and against 2 replicas
 *   behind a round-robin load balancer (server/test/support/load-balancer.ts); the baseline is
 *   1 replica through the same balancer, so the proxy's own cost is in both.
 * Every figure line reads `name  figure  baseline  ratio`. BENCH_SUBMISSIONS submissions per
 * measurement (default 3000), BENCH_SECONDS per get_problem measurement (default 5),
 * BENCH_CONCURRENCY callers (default 8). Run with `npm run bench:scale` (DATABASE_URL, else the
 * embedded PostgreSQL). On a 2-core machine the processes share two cores with PostgreSQL and
 * the bench itself: the ratios say how much of that a fleet turns into throughput.
 */
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { pino } from "pino";
import { uploadArtifact } from "../../server/src/artifacts/upload-artifact.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import type { ToolContext } from "../../server/src/edges/mcp/tools/tool.ts";
import { startAttempt } from "../../server/src/solving/start-attempt.ts";
import { createSubmission } from "../../server/src/submissions/create-submission.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { localSandboxRunner } from "../../server/src/verification/local-sandbox-runner.ts";
import { newAuthor, newUser } from "../../server/test/authoring/support/authoring-harness.ts";
import { type FleetProcess, startFleetProcess } from "../../server/test/support/fleet.ts";
import { startLoadBalancer } from "../../server/test/support/load-balancer.ts";
import {
  passConformance,
  publishProblem,
} from "../../server/test/verification/support/verification-harness.ts";
import { seedProblems } from "../mcp/seed-problems.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { printSummary, throughput } from "../support/measure.ts";
import { backendsCpu, backendsCpuSince, processCpuMs } from "../support/postgres-cpu.ts";
import { waitForRunsFinished } from "../support/wait-for-runs.ts";

// A measurement's length: 300 and then 1,000 took about a second with one worker, and one fleet size
// measured twice in one run still differed by up to 30% (930 and 1,216 runs/s).
const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 3000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PROBLEMS = 1_000;
/** Rounds of the 1, 2 and 4 process fleets (BENCH_ROUNDS, default 2), summed per fleet size. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Submissions each fleet runs before it is measured (BENCH_WARMUP, default 300): its processes' JIT and their PostgreSQL sessions' caches warm, as a long-running fleet's are. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const log = pino({ level: "silent" });

const db = await benchDatabase();
const processes: FleetProcess[] = [];
try {
  const blobDir = join(db.dataDir, "blobs");
  const services = await openServices({
    sql: db.sql,
    log,
    clock: () => new Date(),
    dataDir: db.dataDir,
    blobDir,
    signingSecret: "bench-signing-secret-of-32-bytes",
    sandbox: localSandboxRunner({ backends: {} }),
  });
  // What every process of the fleet shares: the database and the blobs.
  const env = {
    DATABASE_URL: db.url,
    SVC_BLOB_DIR: blobDir,
    SVC_SIGNING_SECRET: "bench-signing-secret-of-32-bytes",
    SVC_MIGRATE: "wait",
  };
  const start = async (role: "web" | "worker", extra: Record<string, string> = {}) => {
    const member = startFleetProcess(role, { ...env, ...extra });
    processes.push(member);
    await member.ready;
    return member;
  };
  const stopAll = async () => {
    for (const member of processes.splice(0)) await member.stop("SIGTERM");
  };

  // 1. Verification runs per second with 1, 2 and 4 worker processes.
  const author = await newAuthor(db.sql);
  const solver = await newUser(db.sql);
  const problem = await publishProblem(services, author, "valid-builtin-sat");
  await passConformance(db.sql, problem.verifier_contract_id);
  await db.sql`update problems set visibility = 'unlisted' where id = ${problem.problem_id}`;
  const context: ToolContext = { services, principal: solver, baseUrl: "http://bench" };

  const runsPerSecond = async (workers: number): Promise<{ seconds: number; cpuMs: string }> => {
    const attempts: { attempt_id: string; artifact_id: string }[] = [];
    for (let i = 0; i < SUBMISSIONS + WARMUP; i++) {
      const { attempt } = await startAttempt(services, context, { problem: problem.problem_id });
      const { artifact } = await uploadArtifact(services, context, {
        attempt_id: attempt.id,
        filename: "a.txt",
        content_text: `v 1 2 -3 ${4 + workers * 100_000 + i} 0\n`,
      });
      attempts.push({ attempt_id: attempt.id, artifact_id: artifact.id });
    }
    const fleet = await Promise.all(
      Array.from({ length: workers }, () => start("worker", { SVC_WORKERS: "1" })),
    );
    const submit = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (let i = from + lane; i < to; i += 4) {
            await createSubmission(services, context, {
              attempt_id: attempts[i]!.attempt_id,
              artifacts: [{ role: "assignment", artifact_id: attempts[i]!.artifact_id }],
            });
          }
        }),
      );
    await submit(SUBMISSIONS, SUBMISSIONS + WARMUP);
    await waitForRunsFinished(db.sql);
    const eachCpu = () => fleet.map((member) => processCpuMs(member.child.pid!) ?? 0);
    const workersCpu = () => eachCpu().reduce((sum, ms) => sum + ms, 0);
    const eachBefore = eachCpu();
    const cpuBefore = {
      bench: process.cpuUsage(),
      workers: workersCpu(),
      postgres: await backendsCpu(db.sql),
    };
    const began = performance.now();
    const beganAt = new Date();
    await submit(0, SUBMISSIONS);
    await waitForRunsFinished(db.sql);
    // A batch's runs share the start time its one statement gave them.
    const [counted] = await db.sql<{ batches: number }[]>`
      select count(distinct started_at)::int as batches from verification_runs where started_at >= ${beganAt}`;
    const batches = counted?.batches ?? 0;
    const seconds = (performance.now() - began) / 1000;
    const bench = process.cpuUsage(cpuBefore.bench);
    const cpu = {
      bench: (bench.user + bench.system) / 1000 / SUBMISSIONS,
      workers: (workersCpu() - cpuBefore.workers) / SUBMISSIONS,
      // Each process's share, busiest first: whether the extra processes stayed idle.
      each: eachCpu()
        .map((ms, i) => (ms - eachBefore[i]!) / SUBMISSIONS)
        .sort((a, b) => b - a),
      postgres: ((await backendsCpuSince(db.sql, cpuBefore.postgres)) ?? Number.NaN) / SUBMISSIONS,
    };
    await stopAll();
    const total = cpu.bench + cpu.workers + cpu.postgres;
    return {
      seconds,
      cpuMs: `${(SUBMISSIONS / seconds).toFixed(0)} runs/s, ${batches} batches  CPU/verdict ${total.toFixed(2)} ms (creating ${cpu.bench.toFixed(2)} + workers ${cpu.workers.toFixed(2)}${workers > 1 ? ` [${cpu.each.map((ms) => ms.toFixed(2)).join(" ")}]` : ""} + PostgreSQL ${cpu.postgres.toFixed(2)})`,
    };
  };
  // ROUNDS rounds, the fleet sizes in turn and each round in the other order (1 2 4, 4 2 1, ...),
  // each size's rounds summed: a change in the machine's other load during the run falls on every
  // size instead of on whichever ran last (one round's ratios swung 0.84-1.14x between runs).
  const rounds = new Map<number, { seconds: number; cpuMs: string }[]>([1, 2, 4].map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const sizes = round % 2 === 0 ? [1, 2, 4] : [4, 2, 1];
    for (const workers of sizes) rounds.get(workers)!.push(await runsPerSecond(workers));
  }
  const summed = (workers: number) => {
    const each = rounds.get(workers)!;
    return {
      runs: (SUBMISSIONS * each.length) / each.reduce((total, round) => total + round.seconds, 0),
      cpuMs: each.map((round) => round.cpuMs).join("; "),
    };
  };
  const verify1 = summed(1);
  const verify2 = summed(2);
  const verify4 = summed(4);

  // 2. get_problem calls per second with 1 and 2 web replicas.
  await seedProblems(db.sql, PROBLEMS);
  await addUser(db.sql, { handle: "bench-reader" });
  const { token } = await issueToken(db.sql, "bench-reader", ["read"]);
  const webA = await start("web", { SVC_WORKERS: "0" });
  const webB = await start("web", { SVC_WORKERS: "0" });
  const lb = await startLoadBalancer();
  const callsPerSecond = async (upstreams: string[]): Promise<number> => {
    lb.setUpstreams(upstreams);
    const clients = await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const client = new Client({ name: "bench-scale", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${lb.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        return client;
      }),
    );
    try {
      return await throughput(
        async (i) => {
          const result = await clients[i % CONCURRENCY]!.callTool({
            name: "get_problem",
            arguments: { problem: `bench-${(i * 7919) % PROBLEMS}` },
          });
          if (result.isError) throw new Error(`get_problem failed: ${JSON.stringify(result.content)}`);
        },
        { seconds: SECONDS, concurrency: CONCURRENCY },
      );
    } finally {
      for (const client of clients) await client.close();
    }
  };
  const web1 = await callsPerSecond([webA.url]);
  const web2 = await callsPerSecond([webA.url, webB.url]);
  const served = lb.served;
  await lb.close();
  await stopAll();

  const line = (name: string, figure: number, unit: string, baseline: number, note = "") =>
    console.log(
      `${name.padEnd(44)} ${figure.toFixed(1).padStart(8)} ${unit}   baseline ${baseline.toFixed(1).padStart(8)}   ratio ${(figure / baseline).toFixed(2)}x${note ? `   ${note}` : ""}`,
    );
  console.log(
    `bench/scale on ${db.description}, node ${process.version}: ${SUBMISSIONS} submissions per measurement, ${ROUNDS} rounds per fleet size (1 2 4, then 4 2 1, ...) summed, get_problem for ${SECONDS} s with ${CONCURRENCY} callers`,
  );
  line("scale: verification, 1 worker process", verify1.runs, "runs/s ", verify1.runs, verify1.cpuMs);
  line("scale: verification, 2 worker processes", verify2.runs, "runs/s ", verify1.runs, verify2.cpuMs);
  line("scale: verification, 4 worker processes", verify4.runs, "runs/s ", verify1.runs, verify4.cpuMs);
  // The issue's goal: each at least 0.95x the one before.
  console.log(
    `  4 vs 2 worker processes: ${(verify4.runs / verify2.runs).toFixed(2)}x (2 vs 1: ${(verify2.runs / verify1.runs).toFixed(2)}x)`,
  );
  line("scale: get_problem over MCP, 1 web replica", web1, "calls/s", web1);
  line("scale: get_problem over MCP, 2 web replicas", web2, "calls/s", web1);
  console.log(`  requests per replica in the 2-replica run (cumulative): ${JSON.stringify(served)}`);
  printSummary({
    name: "scale verify 2 workers",
    figure: verify2.runs,
    baseline: verify1.runs,
    unit: "runs/s",
    baselineName: "1 worker",
  });
  printSummary({
    name: "scale verify 4 workers",
    figure: verify4.runs,
    baseline: verify1.runs,
    unit: "runs/s",
    baselineName: "1 worker",
  });
  printSummary({
    name: "scale verify 4 vs 2 workers",
    figure: verify4.runs,
    baseline: verify2.runs,
    unit: "runs/s",
    baselineName: "2 workers",
  });
  printSummary({
    name: "scale get_problem 2 replicas",
    figure: web2,
    baseline: web1,
    unit: "calls/s",
    baselineName: "1 replica",
  });
} finally {
  for (const member of processes) await member.stop("SIGKILL");
  await db.close();
}
