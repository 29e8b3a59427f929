import { describe, expect, it } from "vitest";
import { ServiceCallError } from "../../src/client/service-call-error.ts";
import { RETRY_POLICY, retryWaitMs, withRetries } from "../../src/client/with-retries.ts";

const transient = () => new ServiceCallError("http", "503", { transient: true });

function recorder() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe("withRetries", () => {
  it("makes at most 5 attempts, waiting 2, 4, 8 and 16 s between them, then throws the last failure", async () => {
    const { waits, sleep } = recorder();
    let calls = 0;
    const failure = await withRetries(
      async () => {
        calls += 1;
        throw transient();
      },
      { sleep, random: () => 0 },
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceCallError);
    expect(calls).toBe(RETRY_POLICY.attempts);
    expect(waits).toEqual([2000, 4000, 8000, 16000]);
  });

  it("adds up to 20% jitter to each wait", async () => {
    expect(retryWaitMs(1, () => 0.999)).toBe(2400);
    expect(retryWaitMs(3, () => 0.5)).toBe(8800);
    for (let n = 1; n <= 5; n++) {
      const wait = retryWaitMs(n, Math.random);
      expect(wait).toBeGreaterThanOrEqual(RETRY_POLICY.waitsS[n - 1]! * 1000);
      expect(wait).toBeLessThanOrEqual(RETRY_POLICY.waitsS[n - 1]! * 1200);
    }
  });

  it("honours a server's Retry-After up to 30 s", async () => {
    expect(retryWaitMs(1, () => 0, 12)).toBe(12_000);
    expect(retryWaitMs(1, () => 0, 600)).toBe(30_000);
    expect(retryWaitMs(2, () => 0, 1)).toBe(4000);
  });

  it("returns as soon as an attempt succeeds and reports each retry", async () => {
    const { waits, sleep } = recorder();
    const seen: number[] = [];
    const result = await withRetries(
      async (attempt) => {
        if (attempt < 3) throw transient();
        return attempt;
      },
      { sleep, random: () => 0, onRetry: ({ attempt }) => seen.push(attempt) },
    );
    expect(result).toBe(3);
    expect(seen).toEqual([1, 2]);
    expect(waits).toEqual([2000, 4000]);
  });

  it("never retries a failure that is not transient, nor an unexpected exception", async () => {
    const { waits, sleep } = recorder();
    let calls = 0;
    const refusal = new ServiceCallError("forbidden", "no", { transient: false });
    await expect(
      withRetries(
        async () => {
          calls += 1;
          throw refusal;
        },
        { sleep },
      ),
    ).rejects.toBe(refusal);
    await expect(
      withRetries(
        async () => {
          calls += 1;
          throw new RangeError("bug");
        },
        { sleep },
      ),
    ).rejects.toThrow(RangeError);
    expect(calls).toBe(2);
    expect(waits).toEqual([]);
  });
});
