/**
 * bench/events: webhook delivery of the event log, end to end.
 *
 * Prints, in one run on one machine:
 * - events delivered per second: BENCH_EVENTS personal events (default 10,000) appended in their
 *   own transactions by 8 concurrent writers, spread over BENCH_SUBSCRIBERS users (default 100)
 *   each subscribed by webhook to a local receiver, delivered by one worker process (its webhook
 *   delivery loop: passes over many subscriptions, server/src/events/webhook-delivery.ts);
 * - latency from the commit of an event's transaction to its arrival at the receiver: p50, p95
 *   and p99;
 * - event-writing transactions per second with 1, 4 and 16 concurrent writers, each holding its
 *   transaction open 5 ms after appending (as a change does while it writes the rest), against
 *   one writer; and 16 writers taking the former global event-log lock, for comparison;
 * - the drain rate: BENCH_EVENTS more events appended (100 per transaction) while the worker is
 *   stopped, then delivered from a standing start: what delivery alone sustains;
 * - the baseline: the same receiver sent the same number of signed POSTs directly, BENCH_CONCURRENCY
 *   (default 4) at once, each on a connection of its own, with the ratio of the service's rate to it;
 * - stream delivery: BENCH_EVENTS events of one user appended as a backlog, then received as
 *   notifications by one SDK client holding events/stream open over /mcp, against the same
 *   client paging through them with events/list (200 a page), the poll a stream replaces.
 * Run with `npm run bench:events` (DATABASE_URL, else an embedded PostgreSQL).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { EventKind } from "@svc/schemas";
import { pino } from "pino";
import { z } from "zod";
import { safePost } from "../../server/src/core/http/safe-post.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { startWorker } from "../../server/src/edges/worker/start-worker.ts";
import { appendEvent } from "../../server/src/events/append-event.ts";
import { settleEvents } from "../../server/src/events/settle-events.ts";
import { EVENT_NOTIFICATION } from "../../server/src/events/stream-events.ts";
import { subscribeEvents } from "../../server/src/events/subscribe-events.ts";
import { webhookSecret, webhookSignature } from "../../server/src/events/webhook-secret.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { localSandboxRunner } from "../../server/src/verification/local-sandbox-runner.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { percentile, printSummary } from "../support/measure.ts";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const WRITERS = 8;
/** How long each writer of the writers phase holds its transaction open after appending. */
const HOLD_MS = 5;
const WRITER_SECONDS = Number(process.env.BENCH_WRITER_SECONDS ?? 3);
/** The lock every event-writing transaction took before migration 032 (issue 38). */
const FORMER_EVENT_LOG_LOCK = "6005061118224322132";
const log = pino({ level: "silent" });

/** A receiver counting arrivals: the time each event id arrived, and a wake-up when all have. */
function receiver() {
  const arrivals = new Map<string, number>();
  let expected = 0;
  let done: () => void = () => {};
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // Keyed by the event's `n` (its log id is drawn after commit, unknown to the writer).
      const event =
        request.headers["x-svc-event-id"] === undefined ? null : JSON.parse(Buffer.concat(chunks).toString());
      const id = event === null ? `direct-${arrivals.size}` : String(event.data.n);
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

  // Concurrent writers, before any webhook subscription exists (so nothing is woken).
  const writer = await addUser(db.sql, { handle: "bench-writer" });
  const writersRate = async (writers: number, globalLock = false) => {
    let transactions = 0;
    const end = performance.now() + WRITER_SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (performance.now() < end) {
          await db.sql.begin(async (tx) => {
            if (globalLock) await tx`select pg_advisory_xact_lock(${FORMER_EVENT_LOG_LOCK})`;
            await appendEvent(tx, {
              kind: EventKind.runFinished,
              occurredAt: new Date(),
              audienceUserId: writer.id,
              data: { n: transactions },
            });
            await sleep(HOLD_MS);
          });
          transactions++;
        }
      }),
    );
    return transactions / ((performance.now() - started) / 1000);
  };
  const writerRates = new Map<number, number>();
  for (const writers of [1, 4, 16]) writerRates.set(writers, await writersRate(writers));
  const lockedRate = await writersRate(16, true);

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
        await db.sql.begin((tx) =>
          appendEvent(tx, {
            kind: EventKind.runFinished,
            occurredAt: new Date(),
            audienceUserId: users[n % users.length]!,
            data: { n },
          }),
        );
        committed.set(String(n), performance.now());
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

  // Stream delivery: one user's backlog, streamed to an SDK client, against paging events/list.
  const streamer = await addUser(db.sql, { handle: "bench-streamer" });
  const { token } = await issueToken(db.sql, "bench-streamer", ["read", "contribute"]);
  const { subscription } = await subscribeEvents(services, streamer.id, { delivery: { type: "stream" } });
  await settleEvents(db.sql);
  const after = (await db.sql<{ id: string }[]>`select coalesce(max(id), 0)::text as id from events`)[0]!.id;
  for (let first = 0; first < EVENTS; first += 100) {
    await db.sql.begin(async (tx) => {
      for (let n = first; n < Math.min(EVENTS, first + 100); n++) {
        await appendEvent(tx, {
          kind: EventKind.runFinished,
          occurredAt: new Date(),
          audienceUserId: streamer.id,
          data: { n },
        });
      }
    });
  }
  const app = buildApp(services);
  const appUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  const client = new Client({ name: "bench-events", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${appUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const AnyResult = z.looseObject({});
  const pageStart = performance.now();
  let listed = 0;
  for (let cursor = after, more = true; more; ) {
    const page = (await client.request(
      { method: "events/list", params: { cursor, limit: 200 } } as never,
      AnyResult,
    )) as { events: unknown[]; next_cursor: string; has_more: boolean };
    listed += page.events.length;
    cursor = page.next_cursor;
    more = page.has_more;
  }
  const listRate = listed / ((performance.now() - pageStart) / 1000);
  let streamed = 0;
  let allStreamed: () => void = () => {};
  const streamedAll = new Promise<void>((resolve) => {
    allStreamed = resolve;
  });
  client.setNotificationHandler(EVENT_NOTIFICATION, { params: z.looseObject({}) }, () => {
    if (++streamed === EVENTS) allStreamed();
  });
  const abort = new AbortController();
  const streamStart = performance.now();
  const held = client
    .request(
      {
        method: "events/stream",
        params: { subscription_id: subscription.subscription_id, cursor: after },
      } as never,
      AnyResult,
      { signal: abort.signal, timeout: 3600_000 },
    )
    .catch(() => {});
  await streamedAll;
  const streamRate = EVENTS / ((performance.now() - streamStart) / 1000);
  abort.abort();
  await held;
  await client.close();
  await app.close();

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
  console.log(
    `streamed (one SDK client, events/stream backlog)   ${streamRate.toFixed(0)} events/s   events/list paging ${listRate.toFixed(0)} events/s   ratio ${(streamRate / listRate).toFixed(2)}`,
  );
  for (const writers of [1, 4, 16]) {
    console.log(
      `event-writing transactions, ${String(writers).padStart(2)} writers (5 ms open)  ${writerRates.get(writers)!.toFixed(0)}/s`,
    );
  }
  console.log(`  16 writers under the former global lock          ${lockedRate.toFixed(0)}/s`);
  for (const writers of [4, 16]) {
    printSummary({
      name: `events writers ${writers} vs 1`,
      figure: writerRates.get(writers)!,
      baseline: writerRates.get(1)!,
      unit: "tx/s",
      baselineName: "1 writer",
    });
  }
  printSummary({
    name: "events writers 16 vs former lock",
    figure: writerRates.get(16)!,
    baseline: lockedRate,
    unit: "tx/s",
    baselineName: "16 writers, global lock",
  });
  printSummary({
    name: "events webhook deliveries",
    figure: rate,
    baseline,
    unit: "events/s",
    baselineName: "direct signed POSTs",
  });
  printSummary({
    name: "events webhook drain",
    figure: drainRate,
    baseline,
    unit: "events/s",
    baselineName: "direct signed POSTs",
  });
  printSummary({
    name: "events stream delivery",
    figure: streamRate,
    baseline: listRate,
    unit: "events/s",
    baselineName: "events/list paging",
  });
} finally {
  await sink.stop();
  await db.close();
}
