/**
 * bench/events: webhook delivery of the event log, end to end.
 *
 * Prints, in one run on one machine:
 * - events delivered per second: BENCH_EVENTS personal events (default 10,000) appended in their
 *   own transactions by 8 concurrent writers, spread over BENCH_SUBSCRIBERS users (default 100)
 *   each subscribed by webhook to a local receiver, delivered by one worker process's
 *   graphile-worker runner (concurrency BENCH_CONCURRENCY, default 4);
 * - latency from the commit of an event's transaction to its arrival at the receiver: p50, p95
 *   and p99 (appending is bounded by commits, which the event log serializes to hand out ids in
 *   commit order, so this phase delivers as fast as events are appended);
 * - the drain rate: BENCH_EVENTS more events appended (100 per transaction) while the worker is
 *   stopped, then delivered from a standing start: what delivery alone sustains;
 * - the baseline: the same receiver sent the same number of signed POSTs directly, as many at
 *   once as the worker's concurrency, with the ratio of the service's rate to it.
 * Run with `npm run bench:events` (DATABASE_URL, else an embedded PostgreSQL).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { EventKind } from "@svc/schemas";
import { pino } from "pino";
import { safePost } from "../../server/src/core/http/safe-post.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { startWorker } from "../../server/src/edges/worker/start-worker.ts";
import { appendEvent } from "../../server/src/events/append-event.ts";
import { subscribeEvents } from "../../server/src/events/subscribe-events.ts";
import { webhookSecret, webhookSignature } from "../../server/src/events/webhook-secret.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { localSandboxRunner } from "../../server/src/verification/local-sandbox-runner.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { percentile } from "../support/measure.ts";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const WRITERS = 8;
const log = pino({ level: "silent" });

/** A receiver counting arrivals: the time each event id arrived, and a wake-up when all have. */
function receiver() {
  const arrivals = new Map<string, number>();
  let expected = 0;
  let done: () => void = () => {};
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const id = String(request.headers["x-svc-event-id"] ?? `direct-${arrivals.size}`);
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      response.end("ok");
      if (arrivals.size >= expected) done();
    });
  });
  return {
    arrivals,
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    all(count: number): Promise<void> {
      expected = count;
      return new Promise((resolve) => {
        done = resolve;
        if (arrivals.size >= expected) resolve();
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const db = await benchDatabase();
const sink = receiver();
try {
  const base = await sink.start();
  const services = {
    ...(await openServices({
      sql: db.sql,
      log,
      clock: () => new Date(),
      dataDir: db.dataDir,
      signingSecret: "bench-signing-secret-of-32-bytes",
      sandbox: localSandboxRunner({ backends: {} }),
    })),
    allowLoopbackWebhooks: true,
  };

  // Baseline: the same number of signed POSTs straight to the receiver.
  const secret = webhookSecret(services.signingSecret, "esb_baseline000000");
  const body = JSON.stringify({ id: "0", kind: EventKind.runFinished, data: { n: 0 } });
  const baselineStart = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < EVENTS) {
        sent++;
        await safePost(
          `${base}/baseline`,
          body,
          { "x-svc-signature-256": webhookSignature(secret, body) },
          {
            allowLoopback: true,
          },
        );
      }
    }),
  );
  const baseline = EVENTS / ((performance.now() - baselineStart) / 1000);
  sink.arrivals.clear();

  const users: string[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const user = await addUser(db.sql, { handle: `bench-agent-${i}` });
    users.push(user.id);
    await subscribeEvents(services, user.id, { delivery: { type: "webhook", url: `${base}/hook/${i}` } });
  }
  const worker = await startWorker(services, { concurrency: CONCURRENCY, pollInterval: 50 });
  const committed = new Map<string, number>();
  const arrived = sink.all(EVENTS);
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < EVENTS) {
        const n = next++;
        const id = await db.sql.begin((tx) =>
          appendEvent(tx, {
            kind: EventKind.runFinished,
            occurredAt: new Date(),
            audienceUserId: users[n % users.length]!,
            data: { n },
          }),
        );
        committed.set(id, performance.now());
      }
    }),
  );
  const written = performance.now();
  await arrived;
  const finished = performance.now();
  await worker.stop();
  const arrivalsOfFlow = new Map(sink.arrivals);

  // The drain: a backlog appended with the worker stopped, then delivered from a standing start.
  sink.arrivals.clear();
  for (let first = 0; first < EVENTS; first += 100) {
    await db.sql.begin(async (tx) => {
      for (let n = first; n < Math.min(EVENTS, first + 100); n++) {
        await appendEvent(tx, {
          kind: EventKind.runFinished,
          occurredAt: new Date(),
          audienceUserId: users[n % users.length]!,
          data: { n },
        });
      }
    });
  }
  const drained = sink.all(EVENTS);
  const drainStart = performance.now();
  const drainer = await startWorker(services, { concurrency: CONCURRENCY, pollInterval: 50 });
  await drained;
  const drainRate = EVENTS / ((performance.now() - drainStart) / 1000);
  await drainer.stop();

  const latencies = [...committed].map(([id, at]) => arrivalsOfFlow.get(id)! - at).sort((a, b) => a - b);
  const rate = EVENTS / ((finished - start) / 1000);
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  console.log(
    `bench/events on ${db.description}: ${EVENTS} events over ${SUBSCRIBERS} webhook subscribers, worker concurrency ${CONCURRENCY}`,
  );
  console.log(`baseline: signed POSTs straight to the receiver   ${baseline.toFixed(0)} POSTs/s`);
  console.log(
    `appended (8 writers, one transaction each)         ${(EVENTS / ((written - start) / 1000)).toFixed(0)} events/s`,
  );
  console.log(
    `delivered (first append -> last arrival)           ${rate.toFixed(0)} events/s   ratio to baseline ${(rate / baseline).toFixed(4)}`,
  );
  console.log(
    `drained (backlog, worker started)                  ${drainRate.toFixed(0)} events/s   ratio to baseline ${(drainRate / baseline).toFixed(4)}`,
  );
  console.log(
    `commit -> webhook latency                          p50 ${ms(percentile(latencies, 50))}  p95 ${ms(percentile(latencies, 95))}  p99 ${ms(percentile(latencies, 99))}`,
  );
} finally {
  await sink.stop();
  await db.close();
}
