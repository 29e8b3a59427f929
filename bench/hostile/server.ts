/**
 * The service under attack, as its own process so its RSS is its own: a fresh database (as
 * bench/support/bench-database.ts makes it), an author with a contribute token, the real app on
 * a loopback port and a worker (BENCH_WORKERS jobs at once, default 4) for runs and conformance. Prints one JSON line `{url, token}` and serves until SIGTERM.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pino } from "pino";
import { closeValidationPool } from "../../server/src/authoring/validation-pool.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { startWorker } from "../../server/src/edges/worker/start-worker.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { benchDatabase } from "../support/bench-database.ts";

const log = pino({ level: "silent" });
const db = await benchDatabase();
const author = await addUser(db.sql, { handle: "bench-hostile" });
await grantCapability(db.sql, { userId: author.id, capability: "author" });
const { token } = await issueToken(db.sql, "bench-hostile", ["read", "contribute"]);
const services = await openServices({ sql: db.sql, log, clock: () => new Date(), dataDir: db.dataDir });
// A worker, as `svc-server serve` runs one: verification runs and conformance in the sandbox budget.
const worker = await startWorker(services, { concurrency: Number(process.env.BENCH_WORKERS ?? 4) });
const app = buildApp(services);
// The event loop's own delay, so a slow /healthz can be told apart from a busy machine: the bench
// reads and resets it around each scenario (a route of this bench server only).
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
app.get("/bench/event-loop", async () => {
  const figures = { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
  loop.reset();
  return figures;
});
const url = await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(`${JSON.stringify({ url, token, database: db.description })}\n`);
process.once("SIGTERM", async () => {
  await app.close();
  await worker.stop();
  await closeValidationPool();
  // Before the data directory goes: the warm sandbox pools keep their run folders (and disks) in it.
  await services.sandbox.close?.();
  await db.close();
  process.exit(0);
});
