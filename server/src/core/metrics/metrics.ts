import { RunResult } from "@svc/schemas";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's Prometheus metrics (prom-client), one home for every series svc exports
 * (docs/operations.md, "Watching it"). Code records into the instruments below; the metrics
 * listener (edges/http/metrics-server.ts) serves the registry. Every label takes values from a
 * closed set: route templates, tool names, error codes, backends, run states. Never an id, a
 * handle or anything a user typed, so the number of series stays bounded.
 *
 * The instruments are module-level, like prom-client's own default registry: one process has one
 * set, whichever servers, workers and tests it runs. They record only once a metrics listener
 * has started (setMetricsRecording): a process nobody scrapes pays one branch per site.
 */
export const metricsRegistry = new Registry();

let recording = false;

/** Turned on by the metrics listener (metrics-server.ts); tests and benches turn it on themselves. */
export function setMetricsRecording(on: boolean): void {
  recording = on;
}

/** What `labels()` returns while nothing records. */
const NOT_RECORDING = { inc() {}, observe() {} };

/** A prom-client counter that records only while metrics are on. */
class GatedCounter<L extends string> {
  readonly metric: Counter<L>;
  constructor(metric: Counter<L>) {
    this.metric = metric;
  }
  labels(...values: string[]) {
    return recording ? this.metric.labels(...values) : NOT_RECORDING;
  }
  get() {
    return this.metric.get();
  }
}

/** A prom-client histogram that records only while metrics are on. */
class GatedHistogram<L extends string> {
  readonly metric: Histogram<L>;
  constructor(metric: Histogram<L>) {
    this.metric = metric;
  }
  labels(...values: string[]) {
    return recording ? this.metric.labels(...values) : NOT_RECORDING;
  }
  observe(value: number) {
    if (recording) this.metric.observe(value);
  }
}

/** Latency buckets for requests and tool calls: 1 ms to 30 s. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Buckets for waits and sandbox stages: 5 ms to 1 h. */
const WAIT_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

export const httpRequests = new GatedCounter(
  new Counter({
    name: "svc_http_requests_total",
    help: "HTTP requests answered, by method, route template and status code.",
    labelNames: ["method", "route", "status"] as const,
    registers: [metricsRegistry],
  }),
);

export const httpRequestDuration = new GatedHistogram(
  new Histogram({
    name: "svc_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method and route template.",
    labelNames: ["method", "route"] as const,
    buckets: REQUEST_BUCKETS,
    registers: [metricsRegistry],
  }),
);

export const mcpToolCalls = new GatedCounter(
  new Counter({
    name: "svc_mcp_tool_calls_total",
    help: "MCP tools/call answers, by tool and outcome (ok, or the error code of the catalogue).",
    labelNames: ["tool", "outcome"] as const,
    registers: [metricsRegistry],
  }),
);

export const mcpToolCallDuration = new GatedHistogram(
  new Histogram({
    name: "svc_mcp_tool_call_duration_seconds",
    help: "Time to answer an MCP tools/call, by tool.",
    labelNames: ["tool"] as const,
    buckets: REQUEST_BUCKETS,
    registers: [metricsRegistry],
  }),
);

export const validationDuration = new GatedHistogram(
  new Histogram({
    name: "svc_validation_duration_seconds",
    help: "Time an upload's unpacking and lint took on a validation thread, queue wait included.",
    labelNames: ["outcome"] as const,
    buckets: WAIT_BUCKETS,
    registers: [metricsRegistry],
  }),
);

export const runWait = new GatedHistogram(
  new Histogram({
    name: "svc_verification_run_wait_seconds",
    help: "Time from a verification run's creation to its start on a worker.",
    buckets: WAIT_BUCKETS,
    registers: [metricsRegistry],
  }),
);

export const runsFinished = new GatedCounter(
  new Counter({
    name: "svc_verification_runs_finished_total",
    help: "Verification runs this process finished, by result.",
    labelNames: ["result"] as const,
    registers: [metricsRegistry],
  }),
);

export const stageDuration = new GatedHistogram(
  new Histogram({
    name: "svc_sandbox_stage_duration_seconds",
    help: "Time a sandbox checker took (queue for the budget excluded), by backend and result.",
    labelNames: ["backend", "result"] as const,
    buckets: WAIT_BUCKETS,
    registers: [metricsRegistry],
  }),
);

export const warmPoolTakes = new GatedCounter(
  new Counter({
    name: "svc_sandbox_warm_pool_takes_total",
    help: "Sandboxes taken for a run, by backend and whether a warm one was ready (hit) or not (miss).",
    labelNames: ["backend", "outcome"] as const,
    registers: [metricsRegistry],
  }),
);

export const webhookDeliveries = new GatedCounter(
  new Counter({
    name: "svc_webhook_deliveries_total",
    help: "Webhook delivery attempts, by outcome: delivered, http_error (a non-2xx answer) or failed (no answer).",
    labelNames: ["outcome"] as const,
    registers: [metricsRegistry],
  }),
);

export const blobStoreErrors = new GatedCounter(
  new Counter({
    name: "svc_blob_store_errors_total",
    help: "Blob store operations that failed for a reason other than a refusal of the content, by operation.",
    labelNames: ["operation"] as const,
    registers: [metricsRegistry],
  }),
);

// Series of known label values start at 0, so a rate or an alert over them exists before the
// first event (Prometheus' advice for counters that may stay at zero for long).
for (const operation of ["put", "get", "has", "stat", "delete"])
  blobStoreErrors.metric.labels(operation).inc(0);
for (const outcome of ["delivered", "http_error", "failed"]) webhookDeliveries.metric.labels(outcome).inc(0);
for (const backend of ["docker", "bwrap"]) {
  for (const outcome of ["hit", "miss"]) warmPoolTakes.metric.labels(backend, outcome).inc(0);
}
for (const result of Object.values(RunResult)) runsFinished.metric.labels(result).inc(0);

/**
 * A gauge whose value is read when Prometheus scrapes, by `collect`. It lives in `registry`, the
 * registry of one metrics listener (metrics-server.ts), so a process that starts two listeners
 * (tests do) registers each name once per listener.
 */
export function scrapedGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  collect: (gauge: Gauge<L>) => Promise<void> | void,
): Gauge<L> {
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      // Series that have gone (a state with no runs left) are dropped, not kept at their last value.
      this.reset();
      await collect(this);
    },
  });
}
