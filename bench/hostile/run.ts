/**
 * bench/hostile: what hostile work costs the rest of the service. Starts the real server in its
 * own process (bench/hostile/server.ts, over DATABASE_URL or an embedded PostgreSQL), measures
 * `/healthz` with no load (the baseline), then while each scenario runs, and prints p50/p99, their
 * ratios to the baseline, and the server's resident memory (before, and its peak: VmHWM).
 *
 * Scenarios live in their own modules and are listed in SCENARIOS: `checkers.ts` runs hostile
 * checkers through the service's worker (memory, disk, evidence), `validation.ts` runs
 * BENCH_VALIDATIONS (default 10) worst-case validations at once, and one scenario runs both
 * together. The host's MemAvailable is sampled too: checkers are processes of their own. Target: /healthz p99 under
 * 100 ms while they run. Run with `npm run bench:hostile`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { ms, percentile, printSummary } from "../support/measure.ts";
import { type CheckerFigures, prepareCheckers } from "./checkers.ts";
import { prepareValidations } from "./validation.ts";

const VALIDATIONS = Number(process.env.BENCH_VALIDATIONS ?? 10);

/** A scenario: prepares its load (unmeasured), then `run` is the load /healthz is measured under. */
export interface Scenario {
  name: string;
  prepare(server: string, token: string): Promise<{ describe: string; run: () => Promise<string> }>;
}

const checkerLine = (figures: CheckerFigures) => {
  const sorted = [...figures.durations].sort((a, b) => a - b);
  const counts = new Map<string, number>();
  for (const outcome of figures.outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return `runs: ${[...counts].map(([o, n]) => `${n} x ${o}`).join(", ")}; run wall time p50 ${ms(percentile(sorted, 50))}, max ${ms(sorted.at(-1) ?? 0)}`;
};

const SCENARIOS: Scenario[] = [
  {
    name: "hostile checkers through the service",
    prepare: async (server, token) => {
      const prepared = await prepareCheckers(server, token);
      return {
        describe: `${prepared.runs} runs: each evil checker (holds 900 MiB, fills its 1,100 MB disk, writes 1,000 MB of evidence) ${prepared.runs / 3} times`,
        run: async () => checkerLine(await prepared.run()),
      };
    },
  },
  {
    name: `${VALIDATIONS} worst-case validations and the hostile checkers together`,
    prepare: async (server, token) => {
      const validations = await prepareValidations(server, token, VALIDATIONS);
      const checkers = await prepareCheckers(server, token);
      return {
        describe: `the two scenarios at once`,
        run: async () => {
          const [v, c] = await Promise.all([validations.run(), checkers.run()]);
          return `${v.valid} valid, ${v.busy} busy; ${checkerLine(c)}`;
        },
      };
    },
  },
  {
    name: `${VALIDATIONS} worst-case validations at once`,
    prepare: async (server, token) => {
      const prepared = await prepareValidations(server, token, VALIDATIONS);
      return {
        describe: `each archive ${(prepared.archiveBytes / 1024 / 1024).toFixed(1)} MiB zipped, 4,992 files, a 256 KiB statement`,
        run: async () => {
          const figures = await prepared.run();
          const sorted = [...figures.durations].sort((a, b) => a - b);
          return `${figures.valid} valid, ${figures.busy} busy; validation wall time p50 ${ms(percentile(sorted, 50))}, max ${ms(sorted.at(-1) ?? 0)}`;
        },
      };
    },
  },
];

/** /healthz latencies (ms, sorted), one request at a time, until `done` settles (at least `min` samples). */
async function healthzWhile(server: string, done: Promise<unknown>, min = 50): Promise<number[]> {
  let finished = false;
  void done.then(
    () => (finished = true),
    () => (finished = true),
  );
  const samples: number[] = [];
  while (!finished || samples.length < min) {
    const start = performance.now();
    const response = await fetch(`${server}/healthz`);
    await response.arrayBuffer();
    samples.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return samples.sort((a, b) => a - b);
}

/** The server process's resident memory now and at its peak, in MiB (Linux /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) =>
    Number(
      /^(\w+):\s+(\d+) kB$/m.exec(status.split("\n").find((l) => l.startsWith(`${name}:`)) ?? "")?.[2] ?? 0,
    ) / 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

/** The host's available memory now, in MiB (MemAvailable): checkers run as other processes. */
function hostAvailable(): number {
  const line = readFileSync("/proc/meminfo", "utf8")
    .split("\n")
    .find((l) => l.startsWith("MemAvailable:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) / 1024;
}

/** The server's event-loop delay since the last call (ms), from the bench server's own route. */
async function eventLoop(server: string): Promise<{ p99: number; max: number }> {
  return (await (await fetch(`${server}/bench/event-loop`)).json()) as { p99: number; max: number };
}

/** Resets the process's peak RSS (VmHWM) to its current RSS, so the peak is the scenario's own. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

async function startServer(): Promise<{ child: ChildProcess; url: string; token: string; database: string }> {
  const child = spawn(process.execPath, [new URL("./server.ts", import.meta.url).pathname], {
    env: { ...process.env, SVC_VALIDATION_QUEUE: process.env.SVC_VALIDATION_QUEUE ?? String(VALIDATIONS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    lines.close();
    return { child, ...(JSON.parse(line) as { url: string; token: string; database: string }) };
  }
  throw new Error("the bench server exited before it listened");
}

const line = (label: string, samples: number[], base: number[]) =>
  `${label.padEnd(34)} p50 ${ms(percentile(samples, 50)).padStart(9)}  p99 ${ms(percentile(samples, 99)).padStart(9)}  ` +
  `(x${(percentile(samples, 50) / percentile(base, 50)).toFixed(1)}, x${(percentile(samples, 99) / percentile(base, 99)).toFixed(1)})  ${samples.length} requests`;

const server = await startServer();
try {
  console.log(`bench/hostile: server pid ${server.child.pid} on ${server.database}`);
  console.log(
    `validation pool: SVC_VALIDATION_THREADS=${process.env.SVC_VALIDATION_THREADS ?? "default"}, SVC_VALIDATION_QUEUE=${process.env.SVC_VALIDATION_QUEUE ?? VALIDATIONS}`,
  );
  // Warm up the connection pool and the JIT, then the baseline: /healthz alone.
  await healthzWhile(server.url, Promise.resolve(), 50);
  const baseline = await healthzWhile(server.url, Promise.resolve(), 300);
  console.log(line("/healthz, no load", baseline, baseline));
  for (const scenario of SCENARIOS) {
    const prepared = await scenario.prepare(server.url, server.token);
    resetPeak(server.child.pid!);
    await eventLoop(server.url);
    const before = memory(server.child.pid!);
    const hostBefore = hostAvailable();
    let hostLowest = hostBefore;
    const sampler = setInterval(() => {
      hostLowest = Math.min(hostLowest, hostAvailable());
    }, 100);
    const load = prepared.run();
    const samples = await healthzWhile(server.url, load);
    const outcome = await load;
    clearInterval(sampler);
    const after = memory(server.child.pid!);
    const loop = await eventLoop(server.url);
    console.log(`\n${scenario.name}: ${prepared.describe}`);
    console.log(`  ${outcome}`);
    console.log(`  ${line("/healthz during the load", samples, baseline)}`);
    console.log(`  server event loop delay during the load: p99 ${ms(loop.p99)}, max ${ms(loop.max)}`);
    printSummary({
      name: `hostile /healthz p99 (${scenario.name})`,
      figure: percentile(samples, 99),
      baseline: percentile(baseline, 99),
      unit: "ms",
      baselineName: "no load",
    });
    console.log(
      `  server RSS before ${before.rss.toFixed(0)} MiB, peak ${after.peak.toFixed(0)} MiB (+${(after.peak - before.rss).toFixed(0)} MiB); ` +
        `target /healthz p99 < 100 ms: ${percentile(samples, 99) < 100 ? "met" : "MISSED"}`,
    );
    console.log(
      `  host memory available before ${hostBefore.toFixed(0)} MiB, lowest ${hostLowest.toFixed(0)} MiB (-${(hostBefore - hostLowest).toFixed(0)} MiB, checkers and PostgreSQL included)`,
    );
  }
} finally {
  server.child.kill("SIGTERM");
}
