/**
 * bench/lint: lint of a generated 300-problem campaign (the CLI shard ceiling).
 *
 * Prints, in one run on one machine:
 * - the floor: merely reading every file, parsing the JSON ones and sha256-hashing all of them;
 * - in-process lint (open the directory tree, all six passes, the plan and plan_hash);
 * - their ratio (the target is at most 3x);
 * - the `svc lint --json` command end to end, as a user runs it (issue 38's goal: under 150 ms),
 *   against `node -e ''` (the process start-up no command can avoid) plus the floor: the summary
 *   line `lint cli`; and the CPU the command took (Linux: its rusage, 10 ms ticks) against
 *   `node -e ''`'s plus the floor, `lint cli cpu`, which a busy shared machine moves far less.
 * The CLI bundle is rebuilt first, so the figure is what `npx svc` runs. Medians over several runs
 * after a warm-up; run with `npm run bench:lint`.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { lintPackage, openDirectoryTree } from "@svc/app";
import { buildCli } from "../../app/bin/build-cli.ts";
import { childrenCpuMs, printSummary } from "../support/measure.ts";
import { generateCampaign } from "./generate-campaign.ts";

const PROBLEMS = Number(process.env.BENCH_PROBLEMS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const CLI_RUNS = Number(process.env.BENCH_CLI_RUNS ?? 5);

function walk(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

/** The floor: what any linter must at least do with these files. */
function readParseHash(dir: string): number {
  let bytes = 0;
  for (const path of walk(dir)) {
    const data = readFileSync(join(dir, path));
    bytes += data.length;
    if (path.endsWith(".json")) JSON.parse(data.toString("utf8"));
    createHash("sha256").update(data).digest("hex");
  }
  return bytes;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function time(fn: () => unknown, runs: number): Promise<number> {
  return (await timeWithChildCpu(fn, runs)).wall;
}

/** Median wall time of `fn` and median CPU of the child processes it ran (null without /proc). */
async function timeWithChildCpu(
  fn: () => unknown,
  runs: number,
): Promise<{ wall: number; cpu: number | null }> {
  await fn(); // warm-up
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const children = childrenCpuMs();
    const start = performance.now();
    await fn();
    walls.push(performance.now() - start);
    const after = childrenCpuMs();
    if (children !== null && after !== null) cpus.push(after - children);
  }
  return { wall: median(walls), cpu: cpus.length === runs ? median(cpus) : null };
}

const dir = mkdtempSync(join(tmpdir(), "svc-bench-lint-"));
try {
  generateCampaign(dir, PROBLEMS);
  const files = walk(dir);
  const totalBytes = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);

  const check = await lintPackage(await openDirectoryTree(dir));
  if (!check.ok)
    throw new Error(`generated campaign does not lint clean: ${JSON.stringify(check.errors.slice(0, 3))}`);

  const floorMs = await time(() => readParseHash(dir), RUNS);
  const lintMs = await time(async () => lintPackage(await openDirectoryTree(dir)), RUNS);

  await buildCli();
  const cli = join(import.meta.dirname, "../../app/bin/svc.js");
  const { wall: cliMs, cpu: cliCpu } = await timeWithChildCpu(() => {
    const run = spawnSync(process.execPath, [cli, "lint", dir, "--json"], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    if (run.status !== 0) throw new Error(`svc lint exited ${run.status}: ${run.stderr}`);
  }, CLI_RUNS);
  const { wall: startMs, cpu: startCpu } = await timeWithChildCpu(
    () => spawnSync(process.execPath, ["-e", ""]),
    CLI_RUNS,
  );
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

  console.log(
    `bench/lint: ${PROBLEMS} problems, ${files.length} files, ${(totalBytes / 1024).toFixed(0)} KiB (node ${process.version}, load average ${load})`,
  );
  console.log(`  read+parse+sha256 floor   ${floorMs.toFixed(1)} ms`);
  console.log(`  in-process lint + plan    ${lintMs.toFixed(1)} ms`);
  console.log(`  ratio lint / floor        ${(lintMs / floorMs).toFixed(2)}x   (target <= 3x)`);
  console.log(`  node -e '' (start-up)     ${startMs.toFixed(0)} ms`);
  console.log(`  svc lint --json (CLI)     ${cliMs.toFixed(0)} ms   (goal < 150 ms)`);
  if (cliCpu !== null && startCpu !== null) {
    console.log(`  CPU: svc lint ${cliCpu.toFixed(0)} ms, node -e '' ${startCpu.toFixed(0)} ms`);
  }
  printSummary({
    name: "lint cli",
    figure: cliMs,
    baseline: startMs + floorMs,
    unit: "ms",
    baselineName: "node start-up + read/parse/sha256 floor",
  });
  if (cliCpu !== null && startCpu !== null) {
    printSummary({
      name: "lint cli cpu",
      figure: cliCpu,
      baseline: startCpu + floorMs,
      unit: "ms",
      baselineName: "node -e '' CPU + read/parse/sha256 floor",
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
