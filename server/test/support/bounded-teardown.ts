import type { ChildProcess } from "node:child_process";

/**
 * How long an `afterAll` that stops what a file started may take. Each step below is bounded
 * (a child gets `STOP_GRACE_MS` after SIGTERM before SIGKILL; a close that waits on the network
 * gets `STEP_BOUND_MS`), the steps of one hook run side by side where they are independent, and a
 * database drop waits at most 5 s for its pool (test-database.ts): about 12 s at worst, so 30 s
 * holds on a loaded two-core machine where vitest's default 10 s did not.
 */
export const TEARDOWN_BOUND_MS = 30_000;
/** How long a child has after SIGTERM to exit on its own before it is killed. */
export const STOP_GRACE_MS = 3_000;
/** How long one teardown step that waits on a peer (a client's close) may take. */
export const STEP_BOUND_MS = 5_000;

/** Whether a child process has exited (by code or by signal). */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Stops `child`: `signal` (SIGTERM unless told), then SIGKILL once `graceMs` have passed, and
 * resolves with its exit code once it has exited. A child that already exited resolves at once.
 */
export async function stopChild(
  child: ChildProcess,
  { signal = "SIGTERM", graceMs = STOP_GRACE_MS }: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<number | null> {
  if (hasExited(child)) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill(signal);
  const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(kill);
  }
}

/**
 * Waits for `work` at most `ms`: a teardown step that waits on a peer (a client saying goodbye to
 * a server) cannot hold the hook past its bound. An overrun or a failure is told, not thrown: the
 * remaining steps still run.
 */
export async function within(what: string, work: Promise<unknown>, ms = STEP_BOUND_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    const outcome = await Promise.race([work.then(() => "done" as const), late]);
    if (outcome === "late") console.warn(`teardown: ${what} did not finish within ${ms} ms; going on`);
  } catch (error) {
    console.warn(`teardown: ${what} failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
