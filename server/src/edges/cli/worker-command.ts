import type { Logger } from "pino";
import { openDatabase } from "../../core/db/open-database.ts";
import { startTracing } from "../../core/tracing/start-tracing.ts";
import { startMetricsServer } from "../http/metrics-server.ts";
import { startWorker } from "../worker/start-worker.ts";
import { openConfiguredServices } from "./open-services.ts";
import { readySchema } from "./ready-schema.ts";
import { localBlobDir, type ServerConfig } from "./server-config.ts";

/**
 * `svc-server worker`: runs verification, conformance and provisioning jobs (SVC_WORKERS at once,
 * at least 1) without serving HTTP, until SIGTERM or SIGINT; then lets running jobs finish.
 * Start as many as the machine's sandboxes allow, on as many hosts as have engines.
 */
export async function workerCommand(config: ServerConfig, log: Logger): Promise<number> {
  const stop = new Promise<string>((resolve) => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => resolve(signal));
  });
  // Off unless an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT); flushed at the end.
  const tracing = await startTracing("worker");
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
  try {
    await readySchema(db.sql, config, log);
    const services = await openConfiguredServices(db.sql, config, log);
    const concurrency = Math.max(1, config.workers);
    const worker = await startWorker(services, { concurrency, deadAfterMs: config.workerDeadAfterMs });
    const metrics = config.metrics
      ? await startMetricsServer(services, {
          ...config.metrics,
          role: "worker",
          database: false,
          blobDir: localBlobDir(config),
        })
      : null;
    log.info({ concurrency, ...(metrics ? { metrics_url: metrics.url } : {}) }, "svc worker is running");
    const signal = await stop;
    log.info({ signal }, "stopping the worker: letting running jobs finish");
    await worker.stop();
    await metrics?.close();
    await services.sandbox.close?.();
  } finally {
    await db.close();
    await tracing?.shutdown();
  }
  return 0;
}
