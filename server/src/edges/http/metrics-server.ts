import { statfs } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { collectDefaultMetrics, type Gauge, Registry } from "prom-client";
import { currentValidationPool } from "../../authoring/validation-pool.ts";
import { pendingConformance } from "../../conformance/pending-conformance.ts";
import { connectionCounts } from "../../core/db/connection-counts.ts";
import { jobCounts } from "../../core/jobs/job-counts.ts";
import { TaskName } from "../../core/jobs/task-name.ts";
import { metricsRegistry, scrapedGauge, setMetricsRecording } from "../../core/metrics/metrics.ts";
import type { BudgetedSandboxRunner } from "../../core/services/sandbox-budget.ts";
import type { Services } from "../../core/services/services.ts";
import { deliveryLag } from "../../events/delivery-lag.ts";
import { activeRunCounts } from "../../verification/active-run-counts.ts";

export interface MetricsServerOptions {
  host: string;
  port: number;
  /** `serve` or `worker`: a label on every series, so a dashboard tells the processes apart. */
  role: string;
  /**
   * Also export the deployment's database-wide gauges (queue depth, runs by state, jobs, delivery
   * lag, pending conformance, connections). `serve` does; a worker exports only its own process's
   * series, so the same gauge is not scraped once per worker.
   */
  database: boolean;
  /** The blob directory on this host (none when blobs live in a bucket): its free space is exported. */
  blobDir?: string | undefined;
}

export interface MetricsServer {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The Prometheus endpoint (docs/operations.md, "Watching it"): `GET /metrics` on its own listen
 * address (SVC_METRICS_ADDR), never on the public one, so only what can reach that address (the
 * host, a private network, a scraper in the cluster) reads the service's internals. It serves the
 * process's instruments (metrics.ts), Node's own (prom-client's default metrics), and gauges read
 * at scrape time: the sandbox budget and validation queue of this process and, with `database`,
 * the deployment's queues from PostgreSQL.
 */
export async function startMetricsServer(
  services: Services,
  options: MetricsServerOptions,
): Promise<MetricsServer> {
  setMetricsRecording(true);
  const own = new Registry();
  collectDefaultMetrics({ register: own });
  processGauges(own, services);
  if (options.blobDir !== undefined) diskGauge(own, options.blobDir);
  if (options.database) databaseGauges(own, services);
  // One registry of both: the process-wide instruments and this listener's own. A merged
  // registry keeps none of its parts' default labels, so the role is set on it.
  const served = Registry.merge([metricsRegistry, own]);
  served.setDefaultLabels({ role: options.role });
  const server = createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics is served here\n");
      return;
    }
    served.metrics().then(
      (text) => response.writeHead(200, { "content-type": served.contentType }).end(text),
      (error: Error) => {
        services.log.warn({ err: error }, "metrics scrape failed");
        response.writeHead(500, { "content-type": "text/plain" }).end(`${error.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** This process's sandbox budget and validation queue. */
function processGauges(registry: Registry, services: Services): void {
  const budget = services.sandbox as Partial<BudgetedSandboxRunner>;
  const settings = services.sandboxBudget;
  const stats = () => budget.stats?.();
  scrapedGauge(registry, "svc_sandbox_slots", "Sandbox slots of this process's budget.", [], (g) =>
    g.set(settings.slots),
  );
  scrapedGauge(registry, "svc_sandbox_slots_in_use", "Sandboxed checkers running now.", [], (g) =>
    g.set(stats()?.running ?? 0),
  );
  scrapedGauge(registry, "svc_sandbox_waiting", "Sandboxed checkers waiting for the budget.", [], (g) =>
    g.set(stats()?.waiting ?? 0),
  );
  scrapedGauge(
    registry,
    "svc_sandbox_memory_mb",
    "The memory budget of sandboxed checkers, in MB.",
    [],
    (g) => g.set(settings.memory_mb),
  );
  scrapedGauge(
    registry,
    "svc_sandbox_memory_mb_in_use",
    "Memory claimed by running sandboxed checkers, in MB.",
    [],
    (g) => g.set(stats()?.memory_mb_in_use ?? 0),
  );
  scrapedGauge(
    registry,
    "svc_validation_running",
    "Upload validations holding a validation thread.",
    [],
    (g) => g.set(currentValidationPool()?.stats().running ?? 0),
  );
  scrapedGauge(
    registry,
    "svc_validation_queue_depth",
    "Upload validations waiting for a validation thread (past the queue's limit they are refused busy).",
    [],
    (g) => g.set(currentValidationPool()?.stats().waiting ?? 0),
  );
}

/** Free space where the blobs are written: uploads and evidence fail when it runs out. */
function diskGauge(registry: Registry, blobDir: string): void {
  scrapedGauge(
    registry,
    "svc_blob_store_free_bytes",
    "Bytes free to this process on the file system of the local blob directory.",
    [],
    async (g) => {
      // The directory is made on the first put; before that its parent tells the same disk.
      const stats = await statfs(blobDir).catch(() => statfs(dirname(blobDir)));
      g.set(stats.bavail * stats.bsize);
    },
  );
}

/** The deployment's queues, read from PostgreSQL once per scrape. */
function databaseGauges(registry: Registry, services: Services): void {
  const { sql, log } = services;
  // Every gauge below reads one snapshot, taken once however many of them a scrape collects.
  let snapshot: { at: number; value: Promise<DatabaseSnapshot | null> } | undefined;
  const read = () => {
    const now = Date.now();
    if (snapshot === undefined || now - snapshot.at > 1000) {
      snapshot = {
        at: now,
        value: readSnapshot().catch((error: Error) => {
          log.warn({ err: error }, "metrics: the database gauges could not be read");
          return null;
        }),
      };
    }
    return snapshot.value;
  };
  const readSnapshot = async (): Promise<DatabaseSnapshot> => {
    const [runs, jobs, lag, conformance, connections] = await Promise.all([
      activeRunCounts(sql),
      jobCounts(sql),
      deliveryLag(sql),
      pendingConformance(sql),
      connectionCounts(sql),
    ]);
    return { runs, jobs, lag, conformance, connections };
  };
  const gauge = <L extends string>(
    name: string,
    help: string,
    labels: readonly L[],
    set: (g: Gauge<L>, s: DatabaseSnapshot) => void,
  ) =>
    scrapedGauge(registry, name, help, labels, async (g) => {
      const value = await read();
      if (value !== null) set(g, value);
    });

  gauge("svc_verification_runs", "Unfinished verification runs by status.", ["status"], (g, s) => {
    g.set({ status: "queued" }, 0);
    g.set({ status: "running" }, 0);
    for (const row of s.runs.by_status) g.set({ status: row.status }, row.count);
  });
  gauge(
    "svc_verification_oldest_queued_age_seconds",
    "Age of the oldest queued verification run (0: none queued).",
    [],
    (g, s) => g.set(s.runs.oldest_queued_age_s),
  );
  gauge(
    "svc_jobs",
    "graphile-worker jobs by task and state (queued, locked, failed).",
    ["task", "state"],
    (g, s) => {
      // Every task has its series, at 0 while it has no jobs (a finished job is deleted).
      for (const task of Object.values(TaskName)) {
        for (const state of ["queued", "locked", "failed"]) g.set({ task, state }, 0);
      }
      for (const row of s.jobs) {
        g.set({ task: row.task, state: "queued" }, row.queued);
        g.set({ task: row.task, state: "locked" }, row.locked);
        g.set({ task: row.task, state: "failed" }, row.failed);
      }
    },
  );
  gauge("svc_event_log_head", "The id of the newest event in the event log.", [], (g, s) =>
    g.set(s.lag.head),
  );
  gauge("svc_webhook_subscriptions", "Live webhook subscriptions.", [], (g, s) => g.set(s.lag.subscriptions));
  gauge(
    "svc_webhook_subscriptions_failing",
    "Live webhook subscriptions whose last delivery failed (retrying with backoff).",
    [],
    (g, s) => g.set(s.lag.failing),
  );
  gauge(
    "svc_webhook_delivery_lag_events",
    "Events between the log's head and the furthest-behind live subscription's cursor (an upper bound).",
    [],
    (g, s) => g.set(s.lag.max_lag),
  );
  gauge(
    "svc_conformance_pending",
    "Verifier implementations (not yanked) whose conformance has not run yet.",
    [],
    (g, s) => g.set(s.conformance.count),
  );
  gauge(
    "svc_conformance_pending_oldest_age_seconds",
    "Age of the oldest implementation still pending conformance (0: none).",
    [],
    (g, s) => g.set(s.conformance.oldest_age_s),
  );
  gauge(
    "svc_db_connections",
    "The deployment's connections to its database by pool (svc, svc-worker) and state.",
    ["pool", "state"],
    (g, s) => {
      for (const row of s.connections) g.set({ pool: row.pool, state: row.state }, row.count);
    },
  );
}

interface DatabaseSnapshot {
  runs: Awaited<ReturnType<typeof activeRunCounts>>;
  jobs: Awaited<ReturnType<typeof jobCounts>>;
  lag: Awaited<ReturnType<typeof deliveryLag>>;
  conformance: Awaited<ReturnType<typeof pendingConformance>>;
  connections: Awaited<ReturnType<typeof connectionCounts>>;
}
