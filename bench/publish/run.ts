/**
 * bench/publish: `svc draft` of a generated 300-problem campaign (the CLI shard ceiling) against a
 * running service, end to end as an author runs it: lint, zip, request, PUT, validate (unzip,
 * lint again, reconcile), publish (every record in one transaction).
 *
 * Prints, in one run on one machine:
 * - the baseline: `svc lint --json` of the same package (the local work alone);
 * - the first `svc draft` (300 creates) and its ratio to the baseline;
 * - a noop republish: `svc draft --verify` of the unchanged package (replays the shard:
 *   upload, validate, publish, all noop) and its ratio;
 * - a rerun with unchanged state (`svc draft`, the shard skipped locally);
 * - a campaign of BENCH_CAMPAIGN_PROBLEMS problems (default 2,000) published in shards of the
 *   CLI's 300 by one `svc draft`, once, against `svc lint --json` of it (summary `publish campaign
 *   in shards`).
 * Medians of BENCH_RUNS runs; each draft run publishes into a fresh database so every first
 * draft really creates. The CLI bundle is rebuilt first, so the figures are what `npx svc` runs.
 * Summary lines `publish first` and `publish noop` take `svc lint --json` of the same package as
 * their baseline: the local work any publication repeats, so the ratio is what the service adds.
 * Beside each wall time, the CPU it took: the command's own (Linux: its rusage, 10 ms ticks) and
 * the service's (this process, which runs it, every thread included); summary lines `publish first
 * cpu` and `publish noop cpu` give their sum against `svc lint --json`'s CPU, the figures to
 * compare across runs on a shared machine (issue 38's goals: first publication under 1.0 s, noop
 * under 0.5 s). Run with `npm run bench:publish`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { buildCli } from "../../app/bin/build-cli.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { generateCampaign } from "../lint/generate-campaign.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { childrenCpuMs, ownCpuMs, printSummary } from "../support/measure.ts";

const PROBLEMS = Number(process.env.BENCH_PROBLEMS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CAMPAIGN_PROBLEMS = Number(process.env.BENCH_CAMPAIGN_PROBLEMS ?? 2000);
const CLI = join(import.meta.dirname, "../../app/bin/svc.js");

// The service's validation threads load their modules through V8's compile cache, as they do
// under svc-server (server/bin/svc-server.js hands them its directory the same way); the svc
// processes keep their own cache.
const serviceCompileCache = process.env.NODE_COMPILE_CACHE === undefined;
if (serviceCompileCache) {
  const dir = join(homedir(), ".cache", "svc-server", "compile-cache");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  process.env.NODE_COMPILE_CACHE = dir;
}
const log = pino({ level: "silent" });

/** One command's cost: wall time, its own CPU (null without /proc) and the service's, in ms. */
interface Run {
  wall: number;
  cli: number | null;
  service: number;
  /** What it printed on stdout (`--json`: its result). */
  stdout: string;
}

/** Runs `svc <args>` as a user would and returns what it cost; throws on a non-zero exit. */
function svc(args: string[], env: Record<string, string>): Promise<Run> {
  const start = performance.now();
  const children = childrenCpuMs();
  const own = ownCpuMs();
  return new Promise((resolve, reject) => {
    const { NODE_COMPILE_CACHE, ...inherited } = process.env;
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...(serviceCompileCache ? inherited : process.env), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => {
      const wall = performance.now() - start;
      const after = childrenCpuMs();
      const cli = children === null || after === null ? null : after - children;
      if (code === 0) resolve({ wall, cli, service: ownCpuMs() - own, stdout });
      else reject(new Error(`svc ${args.join(" ")} exited ${code}:\n${output.slice(-2000)}`));
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A fresh database with an author and a running service; `fn` gets the CLI's environment. */
async function withService(fn: (env: Record<string, string>) => Promise<void>): Promise<string> {
  const db = await benchDatabase();
  try {
    const author = await addUser(db.sql, { handle: "bench-author" });
    await grantCapability(db.sql, { userId: author.id, capability: "author" });
    const { token } = await issueToken(db.sql, "bench-author", ["read", "contribute"]);
    const services = await openServices({ sql: db.sql, log, clock: () => new Date(), dataDir: db.dataDir });
    const app = buildApp(services);
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      await fn({ SVC_BASE_URL: url, SVC_TOKEN: token });
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
  return db.description;
}

await buildCli();
const packageDir = mkdtempSync(join(tmpdir(), "svc-bench-publish-"));
const campaignDir = mkdtempSync(join(tmpdir(), "svc-bench-campaign-"));
try {
  generateCampaign(packageDir, PROBLEMS);
  const lint: Run[] = [];
  const first: Run[] = [];
  const replay: Run[] = [];
  const skipped: Run[] = [];
  let description = "";
  for (let run = 0; run < RUNS; run++) {
    description = await withService(async (env) => {
      lint.push(await svc(["lint", packageDir, "--json"], env));
      first.push(await svc(["draft", packageDir, "--fresh", "--json"], env));
      replay.push(await svc(["draft", packageDir, "--verify", "--json"], env));
      skipped.push(await svc(["draft", packageDir, "--json"], env));
    });
  }
  generateCampaign(campaignDir, CAMPAIGN_PROBLEMS);
  let campaignLint: Run | undefined;
  let campaignDraft: Run | undefined;
  await withService(async (env) => {
    campaignLint = await svc(["lint", campaignDir, "--json"], env);
    campaignDraft = await svc(["draft", campaignDir, "--fresh", "--json"], env);
  });
  const shards = (JSON.parse(campaignDraft!.stdout) as { planned_shards: number }).planned_shards;

  const wall = (runs: Run[]) => median(runs.map((r) => r.wall));
  const cli = (runs: Run[]) => (runs[0]!.cli === null ? null : median(runs.map((r) => r.cli!)));
  const service = (runs: Run[]) => median(runs.map((r) => r.service));
  const cpu = (runs: Run[]) => {
    const own = cli(runs);
    return own === null ? null : median(runs.map((r) => r.cli! + r.service));
  };
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const cpuText = (runs: Run[]) => {
    const own = cli(runs);
    return own === null ? "" : `cpu ${seconds(own)} svc + ${seconds(service(runs))} service`;
  };
  const base = wall(lint);
  const line = (label: string, runs: Run[], goal = "") =>
    console.log(
      `  ${label.padEnd(38)} ${seconds(wall(runs))}  (${(wall(runs) / base).toFixed(2)}x lint${goal})  ${cpuText(runs)}`,
    );
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  console.log(
    `bench/publish: ${PROBLEMS}-problem campaign, ${description}, node ${process.version}, median of ${RUNS}, load average ${load}`,
  );
  console.log(`  svc lint --json (baseline)             ${seconds(base)}  ${cpuText(lint)}`);
  line("svc draft, first publication", first, ", goal < 1.0 s");
  line("svc draft --verify, noop republish", replay, ", goal < 0.5 s");
  line("svc draft, unchanged (shard skipped)", skipped);
  console.log(
    `  ${CAMPAIGN_PROBLEMS}-problem campaign: svc lint ${seconds(campaignLint!.wall)}, svc draft in ${shards} shards ${seconds(campaignDraft!.wall)}  ${cpuText([campaignDraft!])}`,
  );
  const baselineName = "svc lint --json";
  printSummary({ name: "publish first", figure: wall(first), baseline: base, unit: "ms", baselineName });
  printSummary({
    name: "publish campaign in shards",
    figure: campaignDraft!.wall,
    baseline: campaignLint!.wall,
    unit: "ms",
    baselineName: `svc lint --json of ${CAMPAIGN_PROBLEMS}`,
  });
  printSummary({ name: "publish noop", figure: wall(replay), baseline: base, unit: "ms", baselineName });
  const lintCpu = cpu(lint);
  if (lintCpu !== null) {
    const cpuBaseline = "svc lint --json CPU";
    for (const [name, runs] of [
      ["publish first cpu", first],
      ["publish noop cpu", replay],
    ] as const) {
      printSummary({ name, figure: cpu(runs)!, baseline: lintCpu, unit: "ms", baselineName: cpuBaseline });
    }
  }
} finally {
  rmSync(packageDir, { recursive: true, force: true });
  rmSync(campaignDir, { recursive: true, force: true });
}
