/**
 * bench/mcp: agent reads over MCP against a plain fastify JSON route serving the same rows.
 *
 * Prints, in one run on one machine, over N generated listed problems (default 100,000):
 * - get_problem calls per second and CPU per call (of the server's process, of the database's
 *   backends and of the client's) through the MCP endpoint (bearer auth, visibility checks, the
 *   full envelope with signed URLs), through the service's `GET /api/problems/{slug}`, and through
 *   a plain fastify route that selects the same problem and revision and returns them as JSON.
 *   Every load comes from a process of its own, so the server's process pays only for serving,
 *   and its CPU over the run, divided by the calls, is the server's cost per call. The headline
 *   pair is driven by wrk (wrk-load.ts), the same client for /mcp and the plain route, costing a
 *   few microseconds a call, so the rate is the server's, in alternating rounds (BENCH_ROUNDS,
 *   default 3, of BENCH_SECONDS a side) summed, so a change in the machine's load falls on both; then the SDK client (2025 protocol and
 *   2026-07-28) and `fetch` posting the same JSON-RPC call (load-client.ts), whose own CPU shares
 *   the machine's cores; and the wrk pair again over the first 2,000 problems only, read over and
 *   over (every revision in the service's cache, as for agents working on a few problems);
 * - search_problems latency p50 and p95 over MCP and through the plain route running the same
 *   full-text query (title and summary matches, then statement matches, each by priority); their
 *   ratio; and the former order, ts_rank over every match, as bare SQL. Broad queries (two common
 *   words: tens of thousands of matches) and selective ones (a title number: one match) are
 *   measured apart.
 * Ends with `printSummary` lines: `mcp get_problem` (wrk against the plain route, wrk),
 * `mcp get_problem, hot problems` (the same over the first 2,000 problems),
 * `mcp get_problem, SDK client`, `mcp get_problem, fetch client`, `mcp get_problem server CPU`
 * (the plain route's CPU per call over MCP's, wrk runs), `search broad p95`, `search selective p95`.
 * The load average is printed with the figures: on a shared machine, CPU per call is the steadier one.
 * Run with `npm run bench:mcp` (DATABASE_URL, else the embedded PostgreSQL).
 */
import { execFile } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/server";
import Fastify from "fastify";
import { pino } from "pino";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { ms, percentile, printSummary, sample } from "../support/measure.ts";
import { databaseCpuMs } from "./database-cpu.ts";
import { seedProblems } from "./seed-problems.ts";
import { WRK, wrkInstalled, wrkLoad } from "./wrk-load.ts";

const PROBLEMS = Number(process.env.BENCH_PROBLEMS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Alternating rounds of each wrk pair (BENCH_ROUNDS, default 3), each BENCH_SECONDS a side. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * The hot pair reads only the first HOT_PROBLEMS over and over: every revision then comes from the
 * service's revision cache (20,000 rows), as for agents working on a few problems, where the
 * headline's cycle through all of them misses it on every call.
 */
const HOT_PROBLEMS = Math.min(2_000, PROBLEMS);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 200);
const QUERIES = [
  "graph colouring",
  "shortest path",
  "satisfiability clause",
  "prime factor",
  "convex hull",
  "knapsack",
  "protein folding",
  "markov random walk",
  "cache latency",
  "matrix eigenvalue",
];

const log = pino({ level: "silent" });
/** `0.123 ms`. */
const ms3 = (value: number) => `${value.toFixed(3)} ms`;
const cpus = availableParallelism();
/** `0.48x 0.52x 0.50x`. */
const roundRatios = (ratios: number[]) => ratios.map((ratio) => `${ratio.toFixed(2)}x`).join(" ");
const LOAD_CLIENT = fileURLToPath(new URL("./load-client.ts", import.meta.url));

/** What one load run gave: calls/s, and CPU per call of this (the server's) process, the database's and the client's. */
interface Load {
  callsPerSecond: number;
  serverCpuMs: number;
  /** Null when the database's processes cannot be read (another machine). */
  databaseCpuMs: number | null;
  /** Null for wrk, whose CPU is not measured (a few microseconds a call). */
  clientCpuMs: number | null;
}

/** One load run with the CPU this process and the database's backends spent on it, per call. */
async function measured(
  sql: Parameters<typeof databaseCpuMs>[0],
  run: () => Promise<{ callsPerSecond: number; calls: number; clientCpuMs?: number }>,
): Promise<Load> {
  const database = await databaseCpuMs(sql);
  const cpu = process.cpuUsage();
  const { callsPerSecond, calls, clientCpuMs } = await run();
  const used = process.cpuUsage(cpu);
  const databaseAfter = await databaseCpuMs(sql);
  return {
    callsPerSecond,
    serverCpuMs: (used.user + used.system) / 1000 / calls,
    databaseCpuMs: database === null || databaseAfter === null ? null : (databaseAfter - database) / calls,
    clientCpuMs: clientCpuMs === undefined ? null : clientCpuMs / calls,
  };
}

/**
 * The pair measured in ROUNDS alternating rounds, each side's rounds summed (calls over the time
 * they took, CPU over the calls); `ratios` are the rounds' own mcp/plain ratios, to show the spread.
 */
async function alternated(
  sql: Parameters<typeof databaseCpuMs>[0],
  runs: Record<"mcp" | "plain", () => Promise<{ callsPerSecond: number; calls: number }>>,
): Promise<{ mcp: Load; plain: Load; ratios: number[] }> {
  const rounds: { mcp: Load & { calls: number }; plain: Load & { calls: number } }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pair = {} as (typeof rounds)[number];
    for (const side of ["mcp", "plain"] as const) {
      let calls = 0;
      const load = await measured(sql, async () => {
        const run = await runs[side]();
        calls = run.calls;
        return run;
      });
      pair[side] = { ...load, calls };
    }
    rounds.push(pair);
  }
  const sum = (side: "mcp" | "plain"): Load => {
    const each = rounds.map((round) => round[side]);
    const calls = each.reduce((total, load) => total + load.calls, 0);
    const perCall = (cost: (load: Load) => number | null) => {
      const costs = each.map(cost);
      return costs.some((value) => value === null)
        ? null
        : each.reduce((total, load, i) => total + costs[i]! * load.calls, 0) / calls;
    };
    return {
      callsPerSecond: calls / each.reduce((total, load) => total + load.calls / load.callsPerSecond, 0),
      serverCpuMs: perCall((load) => load.serverCpuMs)!,
      databaseCpuMs: perCall((load) => load.databaseCpuMs),
      clientCpuMs: null,
    };
  };
  return {
    mcp: sum("mcp"),
    plain: sum("plain"),
    ratios: rounds.map((round) => round.mcp.callsPerSecond / round.plain.callsPerSecond),
  };
}

/** get_problem driven at one target from a process of its own (load-client.ts). */
async function loadFromAnotherProcess(
  target: LoadTarget,
  url: string,
  token: string,
  seconds = SECONDS,
): Promise<{ callsPerSecond: number; calls: number; clientCpuMs: number }> {
  const args = [LOAD_CLIENT, target, url, token, String(PROBLEMS), String(seconds), String(CONCURRENCY)];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    callsPerSecond: number;
    calls: number;
    clientCpuMs: number;
  };
}

/** get_problem driven by wrk: over /mcp, or a GET of `${url}${prefix}<slug>` (with the token for /api). */
function loadWithWrk(
  target: "mcp" | "api" | "plain",
  url: string,
  token: string,
  seconds = SECONDS,
  over = PROBLEMS,
) {
  const options = { seconds, connections: CONCURRENCY };
  const problems = String(over);
  if (target === "mcp") {
    return wrkLoad(
      "get-problem-mcp",
      url,
      { TOKEN: token, PROBLEMS: problems, PROTOCOL_VERSION: LATEST_PROTOCOL_VERSION },
      options,
    );
  }
  const env =
    target === "api"
      ? { PATH_PREFIX: "/api/problems/", TOKEN: token, PROBLEMS: problems }
      : { PATH_PREFIX: "/problems/", TOKEN: "", PROBLEMS: problems };
  return wrkLoad("get-problem-path", url, env, options);
}
type LoadTarget = "mcp" | "mcp-modern" | "mcp-fetch" | "plain" | "api";
const db = await benchDatabase();
try {
  const seedStart = performance.now();
  await seedProblems(db.sql, PROBLEMS);
  const seedSeconds = (performance.now() - seedStart) / 1000;

  await addUser(db.sql, { handle: "bench-reader" });
  const { token } = await issueToken(db.sql, "bench-reader", ["read"]);
  const services = await openServices({ sql: db.sql, log, clock: () => new Date(), dataDir: db.dataDir });
  const app = buildApp(services);
  const serviceUrl = await app.listen({ host: "127.0.0.1", port: 0 });

  // The baseline: the same rows from the same database, with no MCP, auth or envelope.
  const plain = Fastify();
  plain.get<{ Params: { slug: string } }>("/problems/:slug", async (request) => {
    const [row] = await db.sql`
      select p.*, row_to_json(r) as revision from problems p
      join problem_revisions r on r.id = p.current_revision_id
      where p.slug = ${request.params.slug}`;
    return row;
  });
  // The same page search_problems reads: each tier an index walk in priority order (migration 019),
  // the title tier testing the title first and the whole document only as a filter.
  const tier = (match: string) => `(
      select id, slug, title, summary, structure, priority_weight, active_attempts,
        -priority_weight as k1, slug collate "C" as k2, ${match.includes("not") ? 1 : 0} as k0
      from problems
      where ${match} and visibility = 'listed' and status = 'open' and current_revision_id is not null
      order by -priority_weight, slug collate "C" limit 51)`;
  const query = "websearch_to_tsquery('english', $1)";
  const titleTier = tier(`title_document @@ ${query} and ts_match_vq(search_document, ${query})`);
  const statementTier = tier(`search_document @@ ${query} and not title_document @@ ${query}`);
  const tieredSearch = `select * from (${titleTier} union all ${statementTier}) t order by k0, k1, k2 limit 51`;
  plain.get<{ Querystring: { q: string } }>("/search", async (request) => {
    const problems = await db.sql.unsafe(tieredSearch, [request.query.q]);
    return { problems };
  });
  // The order search_problems had before: every match ranked by ts_rank.
  plain.get<{ Querystring: { q: string } }>("/search-ranked", async (request) => {
    const problems = await db.sql`
      select id, slug, title, summary, structure, priority_weight, active_attempts from problems
      where search_document @@ websearch_to_tsquery('english', ${request.query.q})
        and visibility = 'listed' and status = 'open'
      order by ts_rank(search_document, websearch_to_tsquery('english', ${request.query.q})) desc, slug
      limit 50`;
    return { problems };
  });
  const plainUrl = await plain.listen({ host: "127.0.0.1", port: 0 });

  const client = new Client({ name: "bench-mcp", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serviceUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return result;
  };

  // Each target first runs unmeasured, so none pays for compiling the server's code paths: the wrk
  // targets for WARM_UP_SECONDS (served by serve-for-profile.ts, /mcp's CPU per call kept falling
  // through the first 20-25 s of load: 0.30 -> 0.23 -> 0.21 -> 0.19 -> 0.18 ms in 4 s rounds, a
  // process already warm 0.18 ms beside it), the others for a second.
  const withWrk = wrkInstalled();
  if (withWrk) {
    for (const target of ["mcp", "api"] as const)
      await loadWithWrk(target, serviceUrl, token, WARM_UP_SECONDS);
    await loadWithWrk("plain", plainUrl, token, WARM_UP_SECONDS);
  }
  for (const target of ["mcp", "mcp-modern", "mcp-fetch", "api"] as const) {
    await loadFromAnotherProcess(target, serviceUrl, token, 1);
  }
  await loadFromAnotherProcess("plain", plainUrl, token, 1);
  const loadBefore = loadavg()[0]!;
  // The headline pair first: /mcp and the plain route, the same client, one run, in ROUNDS
  // alternating rounds (mcp, plain, mcp, plain, ...) summed, so a change in the machine's other
  // load during the run falls on both sides instead of on whichever ran second.
  const wrkLoads = withWrk
    ? {
        ...(await alternated(db.sql, {
          mcp: () => loadWithWrk("mcp", serviceUrl, token),
          plain: () => loadWithWrk("plain", plainUrl, token),
        })),
        api: await measured(db.sql, () => loadWithWrk("api", serviceUrl, token)),
      }
    : null;
  const hotLoads = withWrk
    ? await alternated(db.sql, {
        mcp: () => loadWithWrk("mcp", serviceUrl, token, SECONDS, HOT_PROBLEMS),
        plain: () => loadWithWrk("plain", plainUrl, token, SECONDS, HOT_PROBLEMS),
      })
    : null;
  const fromProcess = (target: LoadTarget, url: string) =>
    measured(db.sql, () => loadFromAnotherProcess(target, url, token));
  const loads = {
    mcp: await fromProcess("mcp", serviceUrl),
    "mcp-modern": await fromProcess("mcp-modern", serviceUrl),
    "mcp-fetch": await fromProcess("mcp-fetch", serviceUrl),
    api: await fromProcess("api", serviceUrl),
    plain: await fromProcess("plain", plainUrl),
  };
  const loadAfter = loadavg()[0]!;
  const broad = (i: number) => QUERIES[i % QUERIES.length]!;
  const selective = (i: number) => String((i * 7919) % PROBLEMS);
  const searches = async (query: (i: number) => string) => ({
    mcp: await sample((i) => call("search_problems", { query: query(i) }), SEARCHES),
    plain: await sample(
      async (i) => (await fetch(`${plainUrl}/search?q=${encodeURIComponent(query(i))}`)).json(),
      SEARCHES,
    ),
    ranked: await sample(
      async (i) => (await fetch(`${plainUrl}/search-ranked?q=${encodeURIComponent(query(i))}`)).json(),
      Math.ceil(SEARCHES / 4),
      5,
    ),
  });
  const broadSearch = await searches(broad);
  const selectiveSearch = await searches(selective);

  await client.close();
  await app.close();
  await plain.close();

  console.log(
    `bench/mcp: ${PROBLEMS} listed problems (seeded in ${seedSeconds.toFixed(1)} s), ${db.description}, node ${process.version}`,
  );
  const plainGet = loads.plain;
  const LABELS: Record<LoadTarget, string> = {
    mcp: "MCP, SDK client (2025)",
    "mcp-modern": "MCP, SDK client (2026-07-28)",
    "mcp-fetch": "MCP, fetch of the same call",
    api: "GET /api/problems/{slug}",
    plain: "plain fastify JSON route",
  };
  const cpu = (value: number | null) => (value === null ? "   n/a" : ms3(value));
  const line = (label: string, load: Load, baseline: Load) =>
    console.log(
      `  ${label.padEnd(30)} ${load.callsPerSecond.toFixed(0).padStart(6)} calls/s (${(load.callsPerSecond / baseline.callsPerSecond).toFixed(2)}x)  server ${ms3(load.serverCpuMs)}  database ${cpu(load.databaseCpuMs)}${load.clientCpuMs === null ? "" : `  client ${ms3(load.clientCpuMs)}`}`,
    );
  console.log(
    `  get_problem, ${CONCURRENCY} concurrent callers in another process: calls/s, CPU per call of the server, the database and the client (load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after, ${cpus} cores)`,
  );
  if (wrkLoads) {
    console.log(
      `  driven by wrk (${WRK}, one thread, ${CONCURRENCY} connections; MCP and plain in ${ROUNDS} alternating rounds of ${SECONDS} s, summed; rounds' ratios ${roundRatios(wrkLoads.ratios)}):`,
    );
    line("MCP, wrk", wrkLoads.mcp, wrkLoads.plain);
    line("GET /api/problems/{slug}, wrk", wrkLoads.api, wrkLoads.plain);
    line("plain fastify JSON route, wrk", wrkLoads.plain, wrkLoads.plain);
  } else {
    console.log(
      `  wrk is not installed (${WRK}; set WRK): the wrk pair is left out, the headline is the fetch pair`,
    );
  }
  if (hotLoads) {
    console.log(
      `  driven by wrk over the first ${HOT_PROBLEMS} problems only (their revisions cached; rounds' ratios ${roundRatios(hotLoads.ratios)}):`,
    );
    line("MCP, wrk, hot", hotLoads.mcp, hotLoads.plain);
    line("plain fastify JSON route, hot", hotLoads.plain, hotLoads.plain);
  }
  console.log("  driven by the SDK client and fetch (load-client.ts):");
  for (const [target, load] of Object.entries(loads) as [LoadTarget, Load][]) {
    line(LABELS[target], load, plainGet);
  }
  for (const [label, { mcp, plain: baseline, ranked }] of [
    ["broad", broadSearch],
    ["selective", selectiveSearch],
  ] as const) {
    const [mp50, mp95, pp50, pp95] = [
      percentile(mcp, 50),
      percentile(mcp, 95),
      percentile(baseline, 50),
      percentile(baseline, 95),
    ];
    console.log(
      `  search_problems, ${label.padEnd(9)}  p50 ${ms(mp50)}  p95 ${ms(mp95)}  (${SEARCHES} searches over MCP)`,
    );
    console.log(`  plain full-text route      p50 ${ms(pp50)}  p95 ${ms(pp95)}`);
    console.log(`  ratio (MCP / plain, p50)   ${(mp50 / pp50).toFixed(2)}x`);
    console.log(
      `  former order, ts_rank SQL  p50 ${ms(percentile(ranked, 50))}  p95 ${ms(percentile(ranked, 95))}  (${ranked.length} searches)`,
    );
  }
  // The headline: /mcp and the plain route driven by the same client (wrk), in the same run.
  const headline = wrkLoads ?? { mcp: loads["mcp-fetch"], plain: plainGet };
  printSummary({
    name: "mcp get_problem",
    figure: headline.mcp.callsPerSecond,
    baseline: headline.plain.callsPerSecond,
    unit: "calls/s",
    baselineName: wrkLoads ? "plain route, both driven by wrk" : "plain route, both driven by fetch",
  });
  if (hotLoads) {
    printSummary({
      name: "mcp get_problem, hot problems",
      figure: hotLoads.mcp.callsPerSecond,
      baseline: hotLoads.plain.callsPerSecond,
      unit: "calls/s",
      baselineName: `plain route, both driven by wrk over ${HOT_PROBLEMS} problems`,
    });
  }
  printSummary({
    name: "mcp get_problem, SDK client",
    figure: loads.mcp.callsPerSecond,
    baseline: plainGet.callsPerSecond,
    unit: "calls/s",
    baselineName: "plain route, fetch",
  });
  printSummary({
    name: "mcp get_problem, fetch client",
    figure: loads["mcp-fetch"].callsPerSecond,
    baseline: plainGet.callsPerSecond,
    unit: "calls/s",
    baselineName: "plain route",
  });
  // The server's own cost: the plain route's CPU per call over the MCP endpoint's (0.5x is half as fast).
  printSummary({
    name: "mcp get_problem server CPU",
    figure: headline.plain.serverCpuMs,
    baseline: headline.mcp.serverCpuMs,
    unit: "ms",
    baselineName: "MCP",
  });
  for (const [label, { mcp, plain: baseline }] of [
    ["broad", broadSearch],
    ["selective", selectiveSearch],
  ] as const) {
    printSummary({
      name: `search ${label} p95`,
      figure: percentile(mcp, 95),
      baseline: percentile(baseline, 95),
      unit: "ms",
      baselineName: "plain route",
    });
  }
} finally {
  await db.close();
}
