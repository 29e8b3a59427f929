import { join, resolve } from "node:path";
import { UsageError } from "@svc/app";
import type { S3BlobStoreSettings } from "../../core/blobs/open-s3-blob-store.ts";
import { WORKER_DEAD_MS } from "../../core/jobs/worker-liveness.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** The service's settings, from the environment (decisions.md, "Service"). */
export interface ServerConfig {
  /** `HOST`, default 127.0.0.1. */
  host: string;
  /** `PORT`, default 8787; 0 picks a free port. */
  port: number;
  /** `DATABASE_URL`; without it the embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * `SVC_DATA_DIR`, default `./.svc-data`, resolved against the directory the command was typed
   * in: npm runs scripts in the workspace folder but records that directory in `INIT_CWD`, so
   * `npm start` and `npx svc-server user add` typed in one folder share one database.
   */
  dataDir: string;
  /** `SVC_BASE_URL`, the public base address; unset: the address the server listens on. */
  baseUrl: string | undefined;
  /** `SVC_BLOB_DIR`, where blobs live; default `<dataDir>/blobs`. */
  blobDir: string | undefined;
  /** `SVC_S3_BUCKET` and its companions: blobs on S3-compatible object storage instead of a directory. */
  s3: S3BlobStoreSettings | undefined;
  /**
   * `SVC_MIGRATE`: `auto` (the default) applies pending migrations when `serve` or `worker`
   * starts; `wait` leaves that to one `svc-server migrate` per deploy and waits for the schema.
   */
  migrate: "auto" | "wait";
  /** `SVC_SCHEMA_WAIT_S`, default 600: how long `wait` waits for the schema before giving up. */
  schemaWaitMs: number;
  /**
   * `SVC_WORKER_DEAD_AFTER_S`, default 90: a worker silent this long is dead and its jobs go to
   * the others. Every worker process of a deployment should use the same value.
   */
  workerDeadAfterMs: number;
  /**
   * `SVC_SHUTDOWN_DELAY_S`, default 0: on SIGTERM, how long `serve` keeps serving with /healthz
   * answering 503 before it stops accepting, so a load balancer takes it out of rotation first.
   */
  shutdownDelayMs: number;
  /** `SVC_SIGNING_SECRET` (at least 32 bytes); unset: one made once and kept in the database. */
  signingSecret: string | undefined;
  /** `LOG_LEVEL`, when set. */
  logLevel: string | undefined;
  /**
   * `SVC_WORKERS`, default 1: verification jobs `serve` runs at once in its own process; 0 runs
   * none there (run `svc-server worker` processes instead).
   */
  workers: number;
  /**
   * `SVC_METRICS_ADDR` (`host:port`, `[v6]:port`, or a port on 127.0.0.1): where `GET /metrics`
   * is served, apart from the public listener; unset: no metrics endpoint.
   */
  metrics: { host: string; port: number } | undefined;
}

/** Reads the settings; throws UsageError for a value that cannot be right. */
export function serverConfig(env: Env = process.env): ServerConfig {
  const host = env.HOST || "127.0.0.1";
  const port = env.PORT ? Number(env.PORT) : 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`PORT=${env.PORT} is not a port: use a whole number from 0 to 65535`);
  }
  const workers = env.SVC_WORKERS ? Number(env.SVC_WORKERS) : 1;
  if (!Number.isInteger(workers) || workers < 0 || workers > 64) {
    throw new UsageError(
      `SVC_WORKERS=${env.SVC_WORKERS} is not a worker count: use a whole number from 0 to 64`,
    );
  }
  const migrate = env.SVC_MIGRATE || "auto";
  if (migrate !== "auto" && migrate !== "wait") {
    throw new UsageError(
      `SVC_MIGRATE=${env.SVC_MIGRATE} is not a migration mode: use auto (migrate at start) or wait (wait for svc-server migrate)`,
    );
  }
  if (env.SVC_S3_BUCKET && env.SVC_BLOB_DIR) {
    throw new UsageError(
      "SVC_S3_BUCKET and SVC_BLOB_DIR are both set: blobs live in one store, so unset one of them",
    );
  }
  return {
    workers,
    metrics: metricsAddress(env.SVC_METRICS_ADDR),
    migrate,
    schemaWaitMs: seconds(env, "SVC_SCHEMA_WAIT_S", 600, 0) * 1000,
    workerDeadAfterMs: seconds(env, "SVC_WORKER_DEAD_AFTER_S", WORKER_DEAD_MS / 1000, 3) * 1000,
    shutdownDelayMs: seconds(env, "SVC_SHUTDOWN_DELAY_S", 0, 0) * 1000,
    s3: s3Settings(env),
    host,
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.INIT_CWD || process.cwd(), env.SVC_DATA_DIR || ".svc-data"),
    baseUrl: env.SVC_BASE_URL?.replace(/\/+$/, "") || undefined,
    blobDir: env.SVC_BLOB_DIR ? resolve(env.INIT_CWD || process.cwd(), env.SVC_BLOB_DIR) : undefined,
    signingSecret: env.SVC_SIGNING_SECRET || undefined,
    logLevel: env.LOG_LEVEL || undefined,
  };
}

/** Where blobs are written on this host: SVC_BLOB_DIR or `<dataDir>/blobs`; none when they live in a bucket. */
export function localBlobDir(config: ServerConfig): string | undefined {
  return config.s3 ? undefined : blobDirectory(config);
}

/** The blob directory when blobs are kept in one: SVC_BLOB_DIR, else `<dataDir>/blobs`. */
export function blobDirectory(settings: { dataDir: string; blobDir?: string | undefined }): string {
  return settings.blobDir ?? join(settings.dataDir, "blobs");
}

/** SVC_METRICS_ADDR: `host:port`, `[v6]:port` or a bare port (on 127.0.0.1). */
function metricsAddress(raw: string | undefined): { host: string; port: number } | undefined {
  if (!raw) return undefined;
  const match = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):)?(\d{1,5})$/.exec(raw);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new UsageError(
      `SVC_METRICS_ADDR=${raw} is not a listen address: use host:port (127.0.0.1:9464), [v6]:port, or a port`,
    );
  }
  return { host: match[1] ?? match[2] ?? "127.0.0.1", port };
}

/** A whole number of seconds from `name`, at least `min`; `fallback` when unset. */
function seconds(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > 86_400) {
    throw new UsageError(
      `${name}=${raw} is not a number of seconds: use a whole number from ${min} to 86400`,
    );
  }
  return value;
}

/** The object store settings when SVC_S3_BUCKET is set (docs/deployment.md, "Object storage"). */
function s3Settings(env: Env): S3BlobStoreSettings | undefined {
  const bucket = env.SVC_S3_BUCKET;
  if (!bucket) {
    const stray = ["SVC_S3_PREFIX", "SVC_S3_ENDPOINT", "SVC_S3_REGION", "SVC_S3_FORCE_PATH_STYLE"].find(
      (name) => env[name],
    );
    if (stray)
      throw new UsageError(`${stray} is set without SVC_S3_BUCKET: set the bucket too, or unset ${stray}`);
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new UsageError(
      `SVC_S3_BUCKET=${bucket} is not a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens`,
    );
  }
  const endpoint = env.SVC_S3_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint)) {
    throw new UsageError(`SVC_S3_ENDPOINT=${endpoint} is not a URL: use https://host[:port]`);
  }
  const pathStyle = env.SVC_S3_FORCE_PATH_STYLE;
  if (pathStyle !== undefined && pathStyle !== "" && pathStyle !== "0" && pathStyle !== "1") {
    throw new UsageError(`SVC_S3_FORCE_PATH_STYLE=${pathStyle} must be 1 or 0`);
  }
  // A prefix names a folder: `svc` and `svc/` mean the same; no leading slash.
  const prefix = (env.SVC_S3_PREFIX ?? "").replace(/^\/+/, "").replace(/\/*$/, "/");
  return {
    bucket,
    prefix: prefix === "/" ? "" : prefix,
    endpoint: endpoint?.replace(/\/+$/, ""),
    region: env.SVC_S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1",
    // Servers other than AWS (MinIO, s3rver, Ceph) mostly want path-style addressing.
    forcePathStyle: pathStyle ? pathStyle === "1" : endpoint !== undefined,
  };
}
