import { availableParallelism, totalmem } from "node:os";
import {
  type CheckerJob,
  type CheckerLimits,
  type CheckerOutcome,
  type KeepEvidence,
  type RuntimeBinding,
  UsageError,
} from "@svc/app";
import { stageDuration } from "../metrics/metrics.ts";
import { withSpan } from "../tracing/tracing.ts";
import type { HostSandboxLeases } from "./host-sandbox-leases.ts";
import type { RunOwner, SandboxEngines, SandboxRunner } from "./sandbox-runner.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The host's sandbox budget (docs/operations.md, "Sandbox budget"): how many checkers run at
 * once, how much memory they may claim together, how many one user may run at once, and the
 * ceilings validation holds every package limit to.
 */
export interface SandboxBudgetSettings {
  /** `SVC_SANDBOX_SLOTS`: checkers running at once on this host (with host leases; else in this process). */
  slots: number;
  /** `SVC_SANDBOX_MEMORY_MB`: the sum of running checkers' `memory_mb`. */
  memory_mb: number;
  /** `SVC_SANDBOX_PER_USER`: checkers one user's work runs at once. */
  per_user: number;
  /**
   * `SVC_STAGE_WAIT_SECONDS`: how long a run's sandbox stage waits for its image or for its
   * implementation's conformance before it ends `inconclusive`, counted from the run's creation.
   */
  stage_wait_seconds: number;
  /** `SVC_MAX_VCPU`, `SVC_MAX_MEMORY_MB`, `SVC_MAX_DISK_MB`, `SVC_MAX_TIMEOUT_SECONDS`. */
  ceilings: CheckerLimits;
}

/** The queue's own accounting, for operators and tests: what runs now and the most that ever ran. */
export interface SandboxBudgetStats {
  running: number;
  waiting: number;
  memory_mb_in_use: number;
  peak_running: number;
  peak_memory_mb: number;
  /** The most runs that ever waited at once. */
  peak_waiting: number;
}

/** A sandbox runner whose runs queue for the budget. */
export interface BudgetedSandboxRunner extends SandboxRunner {
  stats(): SandboxBudgetStats;
}

/** The settings from the environment; a value that cannot be right is a UsageError naming the variable. */
export function sandboxBudgetFromEnv(
  env: Env,
  host: { cores: number; memory_mb: number } = {
    cores: availableParallelism(),
    memory_mb: Math.floor(totalmem() / 2 ** 20),
  },
): SandboxBudgetSettings {
  // One core stays with the service itself; half the RAM is the checkers', the rest the
  // service's, PostgreSQL's and the page cache's.
  const slots = wholeNumber(env, "SVC_SANDBOX_SLOTS", Math.max(1, host.cores - 1), 1, 1024);
  const memory = wholeNumber(
    env,
    "SVC_SANDBOX_MEMORY_MB",
    Math.max(64, Math.floor(host.memory_mb / 2)),
    64,
    2 ** 24,
  );
  const perUser = wholeNumber(env, "SVC_SANDBOX_PER_USER", Math.max(1, Math.ceil(slots / 2)), 1, 1024);
  return {
    slots,
    memory_mb: memory,
    per_user: perUser,
    stage_wait_seconds: wholeNumber(env, "SVC_STAGE_WAIT_SECONDS", 3600, 0, 7 * 24 * 3600),
    ceilings: {
      vcpu: wholeNumber(env, "SVC_MAX_VCPU", Math.min(16, Math.max(1, host.cores)), 1, 16),
      memory_mb: wholeNumber(env, "SVC_MAX_MEMORY_MB", Math.min(16384, memory), 64, 16384),
      disk_mb: wholeNumber(env, "SVC_MAX_DISK_MB", 4096, 64, 65536),
      timeout_seconds: wholeNumber(env, "SVC_MAX_TIMEOUT_SECONDS", 600, 1, 3600),
    },
  };
}

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${name}=${raw} is not valid: use a whole number from ${min} to ${max}`);
  }
  return value;
}

interface Waiter {
  memory_mb: number;
  owner: string;
  start: () => void;
}

/**
 * Wraps a runner so that every sandboxed checker run of this process (validation conformance,
 * conformance after publication, verification stages) waits for a slot, its `memory_mb` from the
 * memory budget and a place under its owner's cap. Waiters start in arrival order; one held back
 * only by its owner's cap lets later ones pass. Builtins run in the service's own process on
 * fixed code and take no slot. A run asking for more memory than the whole budget runs alone
 * (validation's ceilings keep that from happening when SVC_MAX_MEMORY_MB fits the budget).
 */
export function budgetedSandboxRunner(
  inner: SandboxRunner,
  settings: SandboxBudgetSettings,
  /** The host's budget shared with the other processes on it; without it, this process's alone. */
  hostLeases?: HostSandboxLeases,
): BudgetedSandboxRunner {
  let running = 0;
  let memoryInUse = 0;
  const perOwner = new Map<string, number>();
  const waiters: Waiter[] = [];
  const peaks = { running: 0, memory_mb: 0, waiting: 0 };

  const hostHasRoom = (waiter: Waiter) =>
    running < settings.slots && (running === 0 || memoryInUse + waiter.memory_mb <= settings.memory_mb);

  const admitWaiters = () => {
    let globalBlocked = false;
    for (let i = 0; i < waiters.length; ) {
      const waiter = waiters[i]!;
      const ownerFull = (perOwner.get(waiter.owner) ?? 0) >= settings.per_user;
      if (ownerFull) {
        i++;
        continue;
      }
      if (globalBlocked || !hostHasRoom(waiter)) {
        // The first waiter the host cannot take yet keeps its turn: later ones do not overtake it.
        globalBlocked = true;
        i++;
        continue;
      }
      waiters.splice(i, 1);
      running++;
      memoryInUse += waiter.memory_mb;
      perOwner.set(waiter.owner, (perOwner.get(waiter.owner) ?? 0) + 1);
      peaks.running = Math.max(peaks.running, running);
      peaks.memory_mb = Math.max(peaks.memory_mb, memoryInUse);
      waiter.start();
    }
  };

  const release = (waiter: Waiter) => {
    running--;
    memoryInUse -= waiter.memory_mb;
    const count = (perOwner.get(waiter.owner) ?? 1) - 1;
    if (count === 0) perOwner.delete(waiter.owner);
    else perOwner.set(waiter.owner, count);
    admitWaiters();
  };

  return {
    async engines(): Promise<SandboxEngines> {
      return await inner.engines();
    },
    ...(inner.prepareRuntime ? { prepareRuntime: inner.prepareRuntime.bind(inner) } : {}),
    async close() {
      await inner.close?.();
      await hostLeases?.close();
    },
    async run(
      job: CheckerJob,
      binding: RuntimeBinding | null,
      owner?: RunOwner,
      keepEvidence?: KeepEvidence,
    ): Promise<CheckerOutcome> {
      if (binding === null) return await meteredRun(inner, job, binding, owner, keepEvidence);
      const waiter: Waiter = {
        memory_mb: job.implementation.limits.memory_mb,
        owner: owner?.user_id ?? "",
        start: () => {},
      };
      const started = new Promise<void>((resolve) => {
        waiter.start = resolve;
      });
      waiters.push(waiter);
      admitWaiters();
      peaks.waiting = Math.max(peaks.waiting, waiters.length);
      await started;
      try {
        // This process has room; the host may not (other processes on it hold leases).
        const releaseLease = await hostLeases?.acquire(waiter.owner, waiter.memory_mb);
        try {
          return await meteredRun(inner, job, binding, owner, keepEvidence);
        } finally {
          await releaseLease?.();
        }
      } finally {
        release(waiter);
      }
    },
    stats(): SandboxBudgetStats {
      return {
        running,
        waiting: waiters.length,
        memory_mb_in_use: memoryInUse,
        peak_running: peaks.running,
        peak_memory_mb: peaks.memory_mb,
        peak_waiting: peaks.waiting,
      };
    },
  };
}

/** One checker run, its time recorded by backend and result (its wait for the budget excluded). */
async function meteredRun(
  inner: SandboxRunner,
  job: CheckerJob,
  binding: RuntimeBinding | null,
  owner: RunOwner | undefined,
  keepEvidence: KeepEvidence | undefined,
): Promise<CheckerOutcome> {
  return await withSpan("sandbox stage", { "svc.stage_key": job.stage_key }, async (span) => {
    const started = performance.now();
    const outcome = await inner.run(job, binding, owner, keepEvidence);
    stageDuration.labels(outcome.backend, outcome.result).observe((performance.now() - started) / 1000);
    span?.setAttributes({ "svc.sandbox.backend": outcome.backend, "svc.stage_result": outcome.result });
    return outcome;
  });
}
