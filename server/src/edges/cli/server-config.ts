import { resolve } from "node:path";
import { UsageError } from "@svc/app";

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
  /** `SVC_SIGNING_SECRET` (at least 32 bytes); unset: one made once and kept in the database. */
  signingSecret: string | undefined;
  /** `LOG_LEVEL`, when set. */
  logLevel: string | undefined;
  /**
   * `SVC_WORKERS`, default 1: verification jobs `serve` runs at once in its own process; 0 runs
   * none there (run `svc-server worker` processes instead).
   */
  workers: number;
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
  return {
    workers,
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
