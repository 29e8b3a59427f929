import { availableParallelism } from "node:os";
import { bytesTree, type FileTree, type LintReport, TreeError } from "@svc/app";
import { Piscina } from "piscina";
import { ServiceError } from "../core/errors/service-error.ts";
import type { ArchiveValidation } from "./validation-worker.ts";

/** A validated archive as its caller sees it: a tree refusal, or the lint report and the package's files. */
export type PooledValidation = { thread: number } & (
  | { kind: "refused"; error: TreeError }
  | { kind: "linted"; report: LintReport; tree: FileTree }
);

export interface ValidationPoolOptions {
  /** Worker threads: validations unpacking and linting at once. */
  threads: number;
  /** Validations waiting for a thread; one more is refused with `busy`. */
  queue: number;
}

/**
 * The one place uploaded packages are unpacked, linted and planned on the server: a small pool
 * of worker threads (piscina), so a worst-case package (5000 files, 256 MiB unpacked, the largest
 * documents the ceilings allow) never blocks the event loop that answers /healthz and every other
 * request, and a bounded queue, so a burst of validations is refused with `busy` instead of
 * holding memory for each one while it waits.
 */
export class ValidationPool {
  readonly #pool: Piscina;
  readonly #capacity: number;
  #inFlight = 0;

  constructor(options: ValidationPoolOptions) {
    this.#capacity = options.threads + options.queue;
    this.#pool = new Piscina({
      filename: new URL("./validation-worker.ts", import.meta.url).href,
      minThreads: 0,
      maxThreads: options.threads,
      // Threads exit when idle for a while, so an idle server holds no lint heap.
      idleTimeout: 30_000,
    });
  }

  /** Unpacks and lints `archive` on a pool thread; throws ServiceError `busy` when the queue is full. */
  async validate(archive: Uint8Array, now: Date): Promise<PooledValidation> {
    if (this.#inFlight >= this.#capacity) {
      throw new ServiceError(
        "busy",
        `the service is validating ${this.#inFlight} packages, its limit; call validate_authoring_upload again in a few seconds`,
        { retry_after_seconds: 5 },
      );
    }
    this.#inFlight++;
    try {
      const result = (await this.#pool.run({ archive, now })) as ArchiveValidation;
      if (result.kind === "refused") {
        const error = new TreeError(result.code, result.message, result.entry);
        return { thread: result.thread, kind: "refused", error };
      }
      return {
        thread: result.thread,
        kind: "linted",
        report: result.report,
        tree: bytesTree(new Map(result.files)),
      };
    } finally {
      this.#inFlight--;
    }
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}

let shared: ValidationPool | undefined;

/**
 * The process's pool, made on first use from `SVC_VALIDATION_THREADS` (default: half the cores,
 * at least 1, at most 4) and `SVC_VALIDATION_QUEUE` (default 8); docs/operations.md.
 */
export function validationPool(): ValidationPool {
  shared ??= new ValidationPool({
    threads: setting(
      "SVC_VALIDATION_THREADS",
      Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2))),
    ),
    queue: setting("SVC_VALIDATION_QUEUE", 8),
  });
  return shared;
}

/** Ends the process's pool (at shutdown); the next validation makes a new one. */
export async function closeValidationPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}

function setting(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < (name === "SVC_VALIDATION_QUEUE" ? 0 : 1) || value > 64) {
    throw new Error(
      `${name} must be a whole number from ${name === "SVC_VALIDATION_QUEUE" ? 0 : 1} to 64; got "${text}"`,
    );
  }
  return value;
}
