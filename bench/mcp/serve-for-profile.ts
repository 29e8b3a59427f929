/**
 * A serving process for profiling get_problem (not part of `npm run bench`): seeds BENCH_PROBLEMS
 * problems (default 2,000) in a fresh database, serves the app on PORT (default any), prints
 * `{url, token}` (a read token) and closes on SIGTERM, so `node --cpu-prof` writes its profile.
 * Drive it from outside with wrk and the bench's scripts, e.g.
 * `TOKEN=... PROBLEMS=2000 PROTOCOL_VERSION=2025-06-18 wrk -t1 -c4 -d10s -s bench/mcp/wrk/get-problem-mcp.lua <url>`
 * (or get-problem-path.lua with PATH_PREFIX=/api/problems/), and read its CPU from /proc/<pid>/stat.
 */
import { pino } from "pino";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { seedProblems } from "./seed-problems.ts";

const db = await benchDatabase();
await seedProblems(db.sql, Number(process.env.BENCH_PROBLEMS ?? 2000));
await addUser(db.sql, { handle: "bench-reader" });
const { token } = await issueToken(db.sql, "bench-reader", ["read"]);
const log = pino({ level: "silent" });
const services = await openServices({ sql: db.sql, log, clock: () => new Date(), dataDir: db.dataDir });
const app = buildApp(services);
const url = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
console.log(JSON.stringify({ url, token }));
process.on("SIGTERM", async () => {
  await app.close();
  await db.close();
  process.exit(0);
});
