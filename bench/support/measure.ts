import { readFileSync } from "node:fs";

/** Latency samples of `runs` sequential calls after `warmup` unmeasured ones, in milliseconds. */
export async function sample(
  fn: (i: number) => Promise<unknown>,
  runs: number,
  warmup = 20,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b);
}

/** The `p`th percentile (0..100) of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Calls per second with `concurrency` callers looping over `fn` for `seconds`, after a short
 * warm-up: the throughput a client pool would see.
 */
export async function throughput(
  fn: (i: number) => Promise<unknown>,
  options: { seconds: number; concurrency: number },
): Promise<number> {
  for (let i = 0; i < 20; i++) await fn(i);
  let calls = 0;
  const end = performance.now() + options.seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < end) await fn(calls++);
    }),
  );
  return calls / ((performance.now() - start) / 1000);
}

/** `12.3 ms`. */
export const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * One summary line in the stable format `npm run bench` collects into its table:
 * `summary<TAB>name<TAB>figure<TAB>baseline<TAB>ratio`, where figure and baseline carry their
 * unit (`27.8 ms`, `412 runs/s`) and ratio is figure / baseline. Keep `name` the same from run to
 * run so the figures can be compared.
 */
export function printSummary(line: {
  name: string;
  figure: number;
  baseline: number;
  unit: string;
  baselineName?: string;
}): void {
  const decimals = (value: number) => (value >= 100 ? 0 : value >= 10 ? 1 : 2);
  const format = (value: number) => `${value.toFixed(decimals(Math.abs(value)))} ${line.unit}`;
  const baseline = line.baselineName
    ? `${format(line.baseline)} (${line.baselineName})`
    : format(line.baseline);
  const ratio = line.baseline === 0 ? "n/a" : `${(line.figure / line.baseline).toFixed(2)}x`;
  console.log(["summary", line.name, format(line.figure), baseline, ratio].join("\t"));
}

/**
 * CPU time (user + system, ms) of this process's children that have exited and been waited for
 * (`cutime` + `cstime` of /proc/self/stat, in the 10 ms ticks Linux reports): the difference
 * around a `spawn` of a command is that command's CPU, which swings far less than its wall time
 * on a shared machine. Null where there is no /proc.
 */
export function childrenCpuMs(): number | null {
  let stat: string;
  try {
    stat = readFileSync("/proc/self/stat", "utf8");
  } catch {
    return null;
  }
  // Fields after the command name, which is in parentheses and may hold spaces: state is the
  // first, cutime and cstime the 14th and 15th (fields 16 and 17 of proc(5)).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** This process's own CPU time (user + system, every thread), in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
