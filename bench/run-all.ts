/**
 * `npm run bench`: runs every bench, one after another in its own process, streams its output,
 * and ends with one summary table of the `summary` lines they print (`printSummary` in
 * support/measure.ts): each figure with the baseline measured in the same run and their ratio.
 *
 * `BENCH_ONLY=lint,mcp npm run bench` runs a subset; `--markdown` prints the table as Markdown,
 * the form `docs/operations.md`'s capacity table is refreshed from. A bench that fails is named
 * in the table and makes the run exit 1; the others still run.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Every bench, in the order they run: the quick ones first. */
const BENCHES: readonly { name: string; script: string }[] = [
  { name: "lint", script: "lint/run.ts" },
  { name: "reviews", script: "reviews/run.ts" },
  { name: "attestations", script: "attestations/run.ts" },
  { name: "publish", script: "publish/run.ts" },
  { name: "mcp", script: "mcp/run.ts" },
  { name: "mcp-million", script: "mcp/million.ts" },
  { name: "site", script: "site/run.ts" },
  { name: "verify", script: "verify/run.ts" },
  { name: "observability", script: "observability/run.ts" },
  { name: "sandbox", script: "verify/sandbox-overhead.ts" },
  { name: "events", script: "events/run.ts" },
  { name: "hostile-checkers", script: "hostile/checker-output.ts" },
  { name: "hostile", script: "hostile/run.ts" },
  { name: "scale", script: "scale/run.ts" },
];

interface SummaryRow {
  bench: string;
  name: string;
  figure: string;
  baseline: string;
  ratio: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim());
const unknown = only?.filter((name) => !BENCHES.some((bench) => bench.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(
    `BENCH_ONLY names no bench called ${unknown.join(", ")}; the benches are ${BENCHES.map((b) => b.name).join(", ")}`,
  );
  process.exit(2);
}
const selected = BENCHES.filter((bench) => !only || only.includes(bench.name));

/** Runs one bench, echoing its output, and returns its summary rows and exit code. */
function runBench(bench: { name: string; script: string }): Promise<{ rows: SummaryRow[]; code: number }> {
  return new Promise((resolve) => {
    console.log(`\n=== bench/${bench.script} ===`);
    const child = spawn(process.execPath, [join(here, bench.script)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const rows: SummaryRow[] = [];
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const [tag, name, figure, baseline, ratio] = line.split("\t");
        if (tag === "summary" && name && figure && baseline && ratio) {
          rows.push({ bench: bench.name, name, figure, baseline, ratio });
        }
      }
    });
    child.on("close", (code) => resolve({ rows, code: code ?? 1 }));
  });
}

const rows: SummaryRow[] = [];
const failed: string[] = [];
const started = performance.now();
for (const bench of selected) {
  const result = await runBench(bench);
  rows.push(...result.rows);
  if (result.code !== 0) failed.push(bench.name);
  else if (result.rows.length === 0) {
    rows.push({
      bench: bench.name,
      name: `${bench.name}: printed no summary`,
      figure: "-",
      baseline: "-",
      ratio: "-",
    });
  }
}

const header = ["bench", "figure", "value", "baseline", "ratio"];
const table = [
  header,
  ...rows.map((row) => [row.bench, row.name, row.figure, row.baseline, row.ratio]),
  ...failed.map((name) => [name, "FAILED (see its output above)", "-", "-", "-"]),
];
console.log(
  `\n=== summary: ${selected.length} benches in ${((performance.now() - started) / 1000).toFixed(0)} s, node ${process.version} ===`,
);
if (process.argv.includes("--markdown")) {
  console.log(`| ${header.join(" | ")} |`);
  console.log(`| ${header.map(() => "---").join(" | ")} |`);
  for (const cells of table.slice(1)) console.log(`| ${cells.join(" | ")} |`);
} else {
  const widths = header.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  for (const cells of table)
    console.log(cells.map((cell, column) => cell.padEnd(widths[column]!)).join("  "));
}
process.exit(failed.length > 0 ? 1 : 0);
