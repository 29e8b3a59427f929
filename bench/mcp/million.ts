/**
 * bench/mcp/million.ts: search_problems at a million Problems (issue 38), a configuration of its
 * own beside bench/mcp/run.ts.
 *
 * Seeds BENCH_MILLION_PROBLEMS listed Problems (default 1,000,000) in bulk (seed-million.ts:
 * generate_series in PostgreSQL, not publication), then measures search_problems over MCP (a real
 * SDK client with a bearer token, as agents call it), p50 and p95 over BENCH_SEARCHES searches
 * each (default 200), for: broad queries (two common words), selective ones (a title number),
 * and the `random` and `least_attempted` orders with a broad query. Each against its baseline in
 * the same run: the same search called in process (searchProblems, no MCP or HTTP), so the ratio
 * is what the endpoint adds. Goals (issue 38): broad p95 < 25 ms, selective p95 < 5 ms, random
 * and least_attempted broad p95 < 50 ms. Run with `node bench/mcp/million.ts` (DATABASE_URL,
 * else the embedded PostgreSQL); `npm run bench` runs it as `mcp-million`.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { pino } from "pino";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { searchProblems } from "../../server/src/problems/search-problems.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { ms, percentile, printSummary, sample } from "../support/measure.ts";
import { seedProblemsInBulk } from "./seed-million.ts";

const PROBLEMS = Number(process.env.BENCH_MILLION_PROBLEMS ?? 1_000_000);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 200);
const BROAD = [
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

const db = await benchDatabase();
try {
  const seedStart = performance.now();
  await seedProblemsInBulk(db.sql, PROBLEMS);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const reader = await addUser(db.sql, { handle: "bench-reader" });
  const { token } = await issueToken(db.sql, "bench-reader", ["read"]);
  const services = await openServices({ sql: db.sql, log, clock: () => new Date(), dataDir: db.dataDir });
  const app = buildApp(services);
  const serviceUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  const client = new Client({ name: "bench-mcp-million", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serviceUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );

  const broad = (i: number) => BROAD[i % BROAD.length]!;
  const selective = (i: number) => String(1 + ((i * 7919) % PROBLEMS));
  const cases = [
    { name: "broad", query: broad, order: "priority", goal: 25 },
    { name: "selective", query: selective, order: "priority", goal: 5 },
    { name: "random broad", query: broad, order: "random", goal: 50 },
    { name: "least_attempted broad", query: broad, order: "least_attempted", goal: 50 },
  ] as const;
  const results = [];
  for (const c of cases) {
    const overMcp = await sample(async (i) => {
      const result = await client.callTool({
        name: "search_problems",
        arguments: { query: c.query(i), order: c.order },
      });
      if (result.isError) throw new Error(`search_problems failed: ${JSON.stringify(result.content)}`);
    }, SEARCHES);
    const inProcess = await sample(
      (i) =>
        searchProblems(
          db.sql,
          { userId: reader.id, isAdministrator: false },
          { query: c.query(i), order: c.order, status: "open", limit: 50 },
        ),
      SEARCHES,
    );
    results.push({ ...c, overMcp, inProcess });
  }
  await client.close();
  await app.close();

  console.log(
    `bench/mcp/million: ${PROBLEMS} listed problems (seeded in bulk in ${seedSeconds.toFixed(0)} s), ${db.description}, node ${process.version}`,
  );
  for (const r of results) {
    console.log(
      `  search_problems ${r.name.padEnd(22)} over MCP p50 ${ms(percentile(r.overMcp, 50))}  p95 ${ms(percentile(r.overMcp, 95))}   in process p50 ${ms(percentile(r.inProcess, 50))}  p95 ${ms(percentile(r.inProcess, 95))}   goal p95 < ${r.goal} ms`,
    );
  }
  for (const r of results) {
    printSummary({
      name: `search 1M ${r.name} p95`,
      figure: percentile(r.overMcp, 95),
      baseline: percentile(r.inProcess, 95),
      unit: "ms",
      baselineName: "in process",
    });
  }
} finally {
  await db.close();
}
