/**
 * bench/observability: what watching svc costs. Measures, in one run, interleaved round by round
 * so the machine's drift falls on every mode alike:
 * - get_problem calls/s over MCP (a real SDK client, 4 at a time) and this process's CPU per call;
 * - builtin verification runs/s, execution alone (the submissions created first, one worker) and
 *   CPU per run;
 * each with observability off (the baseline), with metrics on (recorded, and scraped every
 * SCRAPE_S seconds, default 15 as in deploy/prometheus, the database gauges included), and with
 * tracing on (the Node SDK exporting every span over OTLP/HTTP to a local receiver). Then what one
 * scrape costs this process (CPU ms, the database gauges' statements included), so the cost of
 * any scrape interval can be worked out. Goal (issue 37): metrics under 5%, tracing under 15%.
 * Summary lines: `metrics get_problem`, `tracing get_problem`, `metrics builtin runs`,
 * `tracing builtin runs`, each against the same with observability off.
 * Run with `npm run bench:observability` (DATABASE_URL, else the embedded PostgreSQL).
 */
import { createServer } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { pino } from "pino";
import { uploadArtifact } from "../../server/src/artifacts/upload-artifact.ts";
import { setMetricsRecording } from "../../server/src/core/metrics/metrics.ts";
import { startTracing } from "../../server/src/core/tracing/start-tracing.ts";
import { setTracingEnabled } from "../../server/src/core/tracing/tracing.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { startMetricsServer } from "../../server/src/edges/http/metrics-server.ts";
import type { ToolContext } from "../../server/src/edges/mcp/tools/tool.ts";
import { startWorker } from "../../server/src/edges/worker/start-worker.ts";
import { startAttempt } from "../../server/src/solving/start-attempt.ts";
import { createSubmission } from "../../server/src/submissions/create-submission.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { localSandboxRunner } from "../../server/src/verification/local-sandbox-runner.ts";
import { newAuthor, newUser } from "../../server/test/authoring/support/authoring-harness.ts";
import {
  passConformance,
  publishProblem,
} from "../../server/test/verification/support/verification-harness.ts";
import { seedProblems } from "../mcp/seed-problems.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { printSummary, throughput } from "../support/measure.ts";
import { waitForRunsFinished } from "../support/wait-for-runs.ts";

const PROBLEMS = Number(process.env.BENCH_PROBLEMS ?? 2_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUNS = Number(process.env.BENCH_SUBMISSIONS ?? 1500);
const SCRAPE_S = Number(process.env.BENCH_SCRAPE_S ?? 15);
const MODES = ["off", "metrics", "tracing"] as const;
type Mode = (typeof MODES)[number];

const log = pino({ level: "silent" });
const db = await benchDatabase();
// The local OTLP receiver: it reads and drops what the exporter sends, counting spans' bytes.
let exportedBytes = 0;
const receiver = createServer((request, response) => {
  request.on("data", (chunk: Buffer) => {
    exportedBytes += chunk.length;
  });
  request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"));
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
try {
  await seedProblems(db.sql, PROBLEMS);
  await addUser(db.sql, { handle: "bench-reader" });
  const { token } = await issueToken(db.sql, "bench-reader", ["read"]);
  const services = await openServices({
    sql: db.sql,
    log,
    clock: () => new Date(),
    dataDir: db.dataDir,
    signingSecret: "bench-signing-secret-of-32-bytes",
    sandbox: localSandboxRunner({ backends: {} }),
  });

  // Two apps over the same services: the plain one, and one built with tracing on (its server
  // spans come from the server factory buildApp picks when tracing is on at build time).
  const plainApp = buildApp(services);
  const plainUrl = await plainApp.listen({ host: "127.0.0.1", port: 0 });
  const { port } = receiver.address() as { port: number };
  const tracing = await startTracing("bench", {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
  });
  if (tracing === null) throw new Error("tracing did not start");
  const tracedApp = buildApp(services);
  const tracedUrl = await tracedApp.listen({ host: "127.0.0.1", port: 0 });
  const metrics = await startMetricsServer(services, {
    host: "127.0.0.1",
    port: 0,
    role: "serve",
    database: true,
  });

  const setMode = (mode: Mode) => {
    setMetricsRecording(mode === "metrics");
    setTracingEnabled(mode === "tracing");
  };
  const connect = async (url: string) => {
    const client = new Client({ name: "bench-observability", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };
  const clients = { plain: await connect(plainUrl), traced: await connect(tracedUrl) };

  /** Scrapes the metrics endpoint every SCRAPE_S while `fn` runs in metrics mode, as Prometheus would (at once, then on). */
  const scraped = async <T>(mode: Mode, fn: () => Promise<T>): Promise<T> => {
    if (mode !== "metrics") return await fn();
    const scrape = () => void fetch(metrics.url).then((r) => r.text());
    scrape();
    const timer = setInterval(scrape, SCRAPE_S * 1000);
    try {
      return await fn();
    } finally {
      clearInterval(timer);
    }
  };

  const getProblem = async (mode: Mode) => {
    setMode(mode);
    const client = mode === "tracing" ? clients.traced : clients.plain;
    const cpu = process.cpuUsage();
    let calls = 0;
    const perSecond = await scraped(mode, () =>
      throughput(
        async (i) => {
          calls++;
          const result = await client.callTool({
            name: "get_problem",
            arguments: { problem: `bench-${(i * 7919) % PROBLEMS}` },
          });
          if (result.isError) throw new Error(`get_problem failed: ${JSON.stringify(result.content)}`);
        },
        { seconds: SECONDS, concurrency: 4 },
      ),
    );
    const used = process.cpuUsage(cpu);
    return { perSecond, cpuMs: (used.user + used.system) / 1000 / calls };
  };

  // Builtin runs: a published builtin problem, its submissions created first, one worker timed.
  const author = await newAuthor(db.sql);
  const solver = await newUser(db.sql);
  const problem = await publishProblem(services, author, "valid-builtin-sat");
  await passConformance(db.sql, problem.verifier_contract_id);
  await db.sql`update problems set visibility = 'unlisted' where id = ${problem.problem_id}`;
  const context: ToolContext = { services, principal: solver, baseUrl: "http://bench" };
  const builtinRuns = async (mode: Mode) => {
    setMode("off");
    for (let i = 0; i < RUNS; i++) {
      const { attempt } = await startAttempt(services, context, { problem: problem.problem_id });
      const { artifact } = await uploadArtifact(services, context, {
        attempt_id: attempt.id,
        filename: "a.txt",
        content_text: `v 1 2 -3 ${4 + i} 0\n`,
      });
      await createSubmission(services, context, {
        attempt_id: attempt.id,
        artifacts: [{ role: "assignment", artifact_id: artifact.id }],
      });
    }
    setMode(mode);
    const cpu = process.cpuUsage();
    const start = performance.now();
    const worker = await startWorker(services, { concurrency: 1, pollInterval: 50 });
    await scraped(mode, () => waitForRunsFinished(db.sql));
    const elapsed = (performance.now() - start) / 1000;
    await worker.stop();
    const used = process.cpuUsage(cpu);
    return { perSecond: RUNS / elapsed, cpuMs: (used.user + used.system) / 1000 / RUNS };
  };

  const results: Record<"get" | "runs", Record<Mode, Array<{ perSecond: number; cpuMs: number }>>> = {
    get: { off: [], metrics: [], tracing: [] },
    runs: { off: [], metrics: [], tracing: [] },
  };
  // A round that is not counted: the first calls and runs of a process pay for JIT compilation.
  await getProblem("off");
  await builtinRuns("off");
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts from a different mode, so no mode always runs first or last.
    for (let k = 0; k < MODES.length; k++) {
      const mode = MODES[(round + k) % MODES.length]!;
      results.get[mode].push(await getProblem(mode));
      results.runs[mode].push(await builtinRuns(mode));
    }
  }
  // One scrape's cost: CPU of this process per scrape of the whole endpoint (serving it, the
  // default metrics, the database gauges' statements sent and read).
  setMode("metrics");
  const SCRAPES = 50;
  const scrapeCpu = process.cpuUsage();
  const scrapeStart = performance.now();
  let scrapeBytes = 0;
  for (let i = 0; i < SCRAPES; i++) {
    // A second apart in the database snapshot's cache: each scrape reads the gauges afresh.
    scrapeBytes = (await (await fetch(metrics.url)).text()).length;
    await new Promise((resolve) => setTimeout(resolve, 1001));
  }
  const scrapeUsed = process.cpuUsage(scrapeCpu);
  const scrapeWall = performance.now() - scrapeStart - SCRAPES * 1001;
  setMode("off");

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(
    `bench/observability on ${db.description}: ${PROBLEMS} problems, ${ROUNDS} rounds of ${SECONDS} s of get_problem and ${RUNS} builtin runs per mode; medians`,
  );
  for (const [what, label, unit] of [
    ["get", "get_problem over MCP", "calls/s"],
    ["runs", "builtin runs, execution alone", "runs/s"],
  ] as const) {
    const off = median(results[what].off.map((r) => r.perSecond));
    const offCpu = median(results[what].off.map((r) => r.cpuMs));
    for (const mode of MODES) {
      const rate = median(results[what][mode].map((r) => r.perSecond));
      const cpu = median(results[what][mode].map((r) => r.cpuMs));
      console.log(
        `${label.padEnd(32)} ${mode.padEnd(8)} ${rate.toFixed(1)} ${unit} (${(rate / off).toFixed(3)}x of off), CPU ${cpu.toFixed(3)} ms each (${(cpu / offCpu).toFixed(3)}x)`,
      );
    }
  }
  const perScrape = (scrapeUsed.user + scrapeUsed.system) / 1000 / SCRAPES;
  console.log(
    `one scrape: ${perScrape.toFixed(2)} ms CPU of this process, ${(scrapeWall / SCRAPES).toFixed(1)} ms wall, ${(scrapeBytes / 1024).toFixed(0)} KiB of text; every ${SCRAPE_S} s that is ${((perScrape / (SCRAPE_S * 1000)) * 100).toFixed(3)}% of a core`,
  );
  for (const mode of ["metrics", "tracing"] as const) {
    printSummary({
      name: `${mode} get_problem`,
      figure: median(results.get[mode].map((r) => r.perSecond)),
      baseline: median(results.get.off.map((r) => r.perSecond)),
      unit: "calls/s",
      baselineName: "off",
    });
    printSummary({
      name: `${mode} builtin runs`,
      figure: median(results.runs[mode].map((r) => r.perSecond)),
      baseline: median(results.runs.off.map((r) => r.perSecond)),
      unit: "runs/s",
      baselineName: "off",
    });
  }
  await Promise.all([clients.plain.close(), clients.traced.close()]);
  await Promise.all([plainApp.close(), tracedApp.close(), metrics.close()]);
  await tracing.shutdown();
  console.log(
    `spans exported over OTLP/HTTP to the local receiver: ${(exportedBytes / 1024).toFixed(0)} KiB`,
  );
  await services.sandbox.close?.();
} finally {
  receiver.close();
  await db.close();
}
