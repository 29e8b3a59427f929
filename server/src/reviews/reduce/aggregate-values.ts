import type { ThresholdAggregate } from "@svc/schemas";

/**
 * The aggregate of a non-empty list of finite numbers. The values are sorted first, so the
 * result does not depend on their order (a floating-point sum does); median of an even count
 * is the mean of the two middle values. Sums that overflow are taken again over v / n, so the
 * mean of finite values stays finite.
 */
export function aggregateValues(aggregate: ThresholdAggregate, values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  switch (aggregate) {
    case "mean": {
      const mean = sorted.reduce((sum, v) => sum + v, 0) / n;
      return Number.isFinite(mean) ? mean : sorted.reduce((sum, v) => sum + v / n, 0);
    }
    case "median": {
      if (n % 2 === 1) return sorted[(n - 1) / 2]!;
      const low = sorted[n / 2 - 1]!;
      const high = sorted[n / 2]!;
      const middle = (low + high) / 2;
      return Number.isFinite(middle) ? middle : low / 2 + high / 2;
    }
    case "min":
      return sorted[0]!;
    case "max":
      return sorted[n - 1]!;
    default: {
      const never: never = aggregate;
      throw new Error(`Unhandled aggregate: ${String(never)}`);
    }
  }
}
