import type { Logger } from "pino";
import { closeValidationPool } from "../../authoring/validation-pool.ts";
import { openDatabase } from "../../core/db/open-database.ts";
import { publicAddressOf, recordPublicAddress } from "../../core/services/public-address.ts";
import { systemClock } from "../../core/time/clock.ts";
import { startTracing } from "../../core/tracing/start-tracing.ts";
import { startMetricsServer } from "../http/metrics-server.ts";
import { startWorker } from "../worker/start-worker.ts";
import { buildApp } from "./build-app.ts";
import { openConfiguredServices } from "./open-services.ts";
import { readySchema } from "./ready-schema.ts";
import { localBlobDir, type ServerConfig } from "./server-config.ts";

const DRAIN_MS = 10_000;

/**
 * `svc-server serve`: opens the database and brings its schema up to date (SVC_MIGRATE), starts
 * SVC_WORKERS verification workers (default 1; 0 for a web-only replica), listens, and on SIGTERM or SIGINT
 * answers /healthz with 503 for SVC_SHUTDOWN_DELAY_S (default 0) while still serving, then stops
 * accepting, lets in-flight requests finish (for up to 10 s), closes the database (stopping the embedded
 * PostgreSQL when no other process uses it) and returns 0. A second signal exits at once with 1.
 */
export async function serveCommand(config: ServerConfig, log: Logger): Promise<number> {
  const stop = new Promise<string>((resolve) => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        resolve(signal);
        process.once(signal, () => {
          log.error({ signal }, "second signal during shutdown: exiting now");
          process.exit(1);
        });
      });
    }
  });
  // Off unless an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT); flushed at the end.
  const tracing = await startTracing("serve");
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
  try {
    await readySchema(db.sql, config, log);
    const services = await openConfiguredServices(db.sql, config, log);
    let draining = false;
    const app = buildApp(services, { draining: () => draining });
    const worker =
      config.workers > 0
        ? await startWorker(services, { concurrency: config.workers, deadAfterMs: config.workerDeadAfterMs })
        : null;
    if (worker) log.info({ concurrency: config.workers }, "verification worker started");
    const metrics = config.metrics
      ? await startMetricsServer(services, {
          ...config.metrics,
          role: "serve",
          database: true,
          blobDir: localBlobDir(config),
        })
      : null;
    if (metrics) log.info({ url: metrics.url }, "metrics are served");
    try {
      const address = await app.listen({ host: config.host, port: config.port });
      // Operator commands build links to the service from this (svc-server user login-link).
      await recordPublicAddress(db.sql, publicAddressOf(config.baseUrl, address), systemClock());
      log.info({ url: address, base_url: config.baseUrl ?? address }, "svc is listening");
      const signal = await stop;
      // Behind a load balancer: keep serving while /healthz says 503, until it has noticed.
      draining = true;
      if (config.shutdownDelayMs > 0) {
        log.info({ signal, delay_ms: config.shutdownDelayMs }, "shutting down: /healthz answers 503 first");
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      }
      log.info({ signal }, "shutting down: draining requests");
    } finally {
      // Requests get DRAIN_MS to finish; then their connections are cut.
      const cut = setTimeout(() => app.server.closeAllConnections(), DRAIN_MS);
      await app.close();
      clearTimeout(cut);
      await metrics?.close();
      // Running jobs finish or are released for another worker (graphile-worker's graceful stop).
      await worker?.stop();
      // Warm sandboxes (started bwrap sandboxes and containers) are removed, none left behind.
      await services.sandbox.close?.();
      // The validation threads end with the requests that used them.
      await closeValidationPool();
    }
  } finally {
    await db.close();
    await tracing?.shutdown();
  }
  log.info("stopped");
  return 0;
}
