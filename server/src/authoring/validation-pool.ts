import { availableParallelism } from "node:os";
import { bytesTree, type FileTree, type LintReport, TreeError } from "@svc/app/authoring-core";
import { Piscina } from "piscina";
import { ServiceError } from "../core/errors/service-error.ts";
import { validationDuration } from "../core/metrics/metrics.ts";
import { type ArchiveValidation, ownBuffer } from "./validation-worker.ts";

/** A validated archive as its caller sees it: a tree refusal, or the lint report and the package's files. */
export type PooledValidation = { thread: number } & (
  | { kind: "refused"; error: TreeError }
  | { kind: "linted"; report: LintReport; tree: FileTree }
);

/** An archive's bytes, or a function reading them once the work has a thread. */
export type Archive = Uint8Array | (() => Promise<Uint8Array>);

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
  readonly #threads: number;
  readonly #queue: number;
  /** Validations holding a thread (reading their archive or on the pool). */
  #running = 0;
  /** Validations waiting for a thread, oldest first; they have not read their archive yet. */
  readonly #waiting: (() => void)[] = [];
  /** A thread is starting for warm(). */
  #warming = false;

  constructor(options: ValidationPoolOptions) {
    this.#threads = options.threads;
    this.#queue = options.queue;
    this.#pool = new Piscina({
      filename: new URL("./validation-worker.ts", import.meta.url).href,
      minThreads: 0,
      maxThreads: options.threads,
      // Threads exit when idle for a while, so an idle server holds no lint heap.
      idleTimeout: 30_000,
    });
  }

  /**
   * Unpacks and lints an archive on a pool thread; throws ServiceError `busy` when the threads and
   * the queue are full. `archive` is the bytes or a function reading them, called only once the
   * validation has its place, so a refused caller reads nothing.
   */
  async validate(archive: Archive, now: Date): Promise<PooledValidation> {
    const result = await this.#run(archive, now);
    if (result.kind === "refused") {
      const error = new TreeError(result.code, result.message, result.entry);
      return { thread: result.thread, kind: "refused", error };
    }
    if (result.kind !== "linted") throw new Error("the validation thread did not lint");
    return {
      thread: result.thread,
      kind: "linted",
      report: result.report,
      tree: bytesTree(new Map(result.files)),
    };
  }

  /**
   * Unpacks an archive on a pool thread without linting it (publication of a validated upload):
   * its files, or the TreeError that refused it; `busy` as for validate.
   */
  async unpack(archive: Archive): Promise<FileTree> {
    const result = await this.#run(archive, null);
    if (result.kind === "refused") throw new TreeError(result.code, result.message, result.entry);
    return bytesTree(new Map(result.files));
  }

  /**
   * Starts a thread now, without waiting for it, when none is running: an upload request is
   * followed by its archive's PUT and then its validation, so the thread's start (loading the
   * authoring core: 0.2-0.3 s of CPU, more on a busy host) overlaps the PUT instead of delaying the
   * validation. The thread exits when idle like any other.
   */
  warm(): void {
    if (this.#warming || this.#pool.threads.length > 0) return;
    this.#warming = true;
    this.#pool
      .run({ warm: true })
      .catch(() => {})
      .finally(() => {
        this.#warming = false;
      });
  }

  /** Validations holding a thread and waiting for one (metrics). */
  stats(): { running: number; waiting: number; threads: number; queue: number } {
    return {
      running: this.#running,
      waiting: this.#waiting.length,
      threads: this.#threads,
      queue: this.#queue,
    };
  }

  async #run(archive: Archive, now: Date | null): Promise<ArchiveValidation> {
    const started = performance.now();
    let outcome = "failed";
    try {
      const result = await this.#runOnThread(archive, now);
      outcome = result.kind;
      return result;
    } catch (error) {
      if (error instanceof ServiceError) outcome = error.code;
      throw error;
    } finally {
      validationDuration.labels(outcome).observe((performance.now() - started) / 1000);
    }
  }

  async #runOnThread(archive: Archive, now: Date | null): Promise<ArchiveValidation> {
    if (this.#running >= this.#threads) {
      if (this.#waiting.length >= this.#queue) {
        throw new ServiceError(
          "busy",
          `the service is unpacking ${this.#running} packages with ${this.#waiting.length} waiting, its limit; call again in a few seconds`,
          { retry_after_s: 5 },
        );
      }
      // Waiting here, before the archive is read, keeps a queued validation's memory near zero;
      // a finishing validation hands its thread over directly (see below).
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      // Bytes a loader returns are moved, not copied: this thread keeps no second copy of the
      // archive while it waits. Bytes given directly stay the caller's, so they are copied.
      const bytes = typeof archive === "function" ? ownBuffer(await archive()) : new Uint8Array(archive);
      const task = { archive: bytes, now };
      return (await this.#pool.run(task, { transferList: [bytes.buffer] })) as ArchiveValidation;
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
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

/** The process's pool when one is made, for metrics; undefined before the first validation. */
export function currentValidationPool(): ValidationPool | undefined {
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
