import { ServiceCallError } from "./service-call-error.ts";

/**
 * The CLI's retry schedule (spec section 8): up to 5 attempts of one step; before attempt n+1
 * the CLI waits WAITS_S[n-1] seconds plus up to 20% jitter, so many authors retrying after one
 * outage do not arrive together. A server's Retry-After is honoured up to the last and longest
 * wait, 30 s. Only transient failures are retried; anything else is an answer and is thrown.
 */
export const RETRY_POLICY = {
  attempts: 5,
  waitsS: [2, 4, 8, 16, 30],
  jitter: 0.2,
} as const;

export interface RetryOptions {
  /** Waits this many milliseconds; tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1); Math.random by default. */
  random?: () => number;
  /** Told before each wait: the attempt that failed, its error and the wait ahead. */
  onRetry?: (info: { attempt: number; error: ServiceCallError; waitMs: number }) => void;
  attempts?: number;
}

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before attempt `failed + 1`, in milliseconds. */
export function retryWaitMs(failed: number, random: () => number, retryAfterS?: number): number {
  const waits = RETRY_POLICY.waitsS;
  const base = waits[Math.min(failed, waits.length) - 1]!;
  const max = waits[waits.length - 1]!;
  const seconds = retryAfterS === undefined ? base : Math.min(max, Math.max(base, retryAfterS));
  return Math.round(seconds * 1000 * (1 + RETRY_POLICY.jitter * random()));
}

/**
 * Runs `step` until it succeeds, fails for good, or uses up its attempts. `step` receives the
 * attempt number (1-based). Failures that are not ServiceCallErrors are thrown as they are.
 */
export async function withRetries<T>(
  step: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? RETRY_POLICY.attempts;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step(attempt);
    } catch (error) {
      if (!(error instanceof ServiceCallError) || !error.transient || attempt >= attempts) throw error;
      const retryAfter = error.details.retry_after_s;
      const waitMs = retryWaitMs(attempt, random, typeof retryAfter === "number" ? retryAfter : undefined);
      options.onRetry?.({ attempt, error, waitMs });
      await sleep(waitMs);
    }
  }
}
