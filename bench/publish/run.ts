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
 * Run with `npm run bench:publish`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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
import { printSummary } from "../support/measure.ts";

const PROBLEMS = Number(process.env.BENCH_PROBLEMS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CAMPAIGN_PROBLEMS = Number(process.env.BENCH_CAMPAIGN_PROBLEMS ?? 2000);
const CLI = join(import.meta.dirname, "../../app/bin/svc.js");
const log = pino({ level: "silent" });

/** Runs `svc <args>` as a user would and returns its wall time in ms; throws on a non-zero exit. */
function svc(args: string[], env: Record<string, string>): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) =>
      code === 0
        ? resolve(performance.now() - start)
        : reject(new Error(`svc ${args.join(" ")} exited ${code}:\n${output.slice(-2000)}`)),
    );
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
  const lint: number[] = [];
  const first: number[] = [];
  const replay: number[] = [];
  const skipped: number[] = [];
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
  let campaignLint = 0;
  let campaignDraft = 0;
  await withService(async (env) => {
    campaignLint = await svc(["lint", campaignDir, "--json"], env);
    campaignDraft = await svc(["draft", campaignDir, "--fresh", "--json"], env);
  });
  const base = median(lint);
  const line = (label: string, values: number[]) =>
    console.log(
      `  ${label.padEnd(38)} ${(median(values) / 1000).toFixed(2)} s  (${(median(values) / base).toFixed(2)}x lint)`,
    );
  console.log(
    `bench/publish: ${PROBLEMS}-problem campaign, ${description}, node ${process.version}, median of ${RUNS}`,
  );
  console.log(`  svc lint --json (baseline)             ${(base / 1000).toFixed(2)} s`);
  line("svc draft, first publication", first);
  line("svc draft --verify, noop republish", replay);
  line("svc draft, unchanged (shard skipped)", skipped);
  const baselineName = "svc lint --json";
  console.log(
    `  ${CAMPAIGN_PROBLEMS}-problem campaign: svc lint ${(campaignLint / 1000).toFixed(2)} s, svc draft in ${Math.ceil(CAMPAIGN_PROBLEMS / 300)} shards ${(campaignDraft / 1000).toFixed(2)} s`,
  );
  printSummary({ name: "publish first", figure: median(first), baseline: base, unit: "ms", baselineName });
  printSummary({
    name: "publish campaign in shards",
    figure: campaignDraft,
    baseline: campaignLint,
    unit: "ms",
    baselineName: `svc lint --json of ${CAMPAIGN_PROBLEMS}`,
  });
  printSummary({ name: "publish noop", figure: median(replay), baseline: base, unit: "ms", baselineName });
} finally {
  rmSync(packageDir, { recursive: true, force: true });
  rmSync(campaignDir, { recursive: true, force: true });
}
