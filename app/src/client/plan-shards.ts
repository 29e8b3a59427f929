/**
 * Sharding (spec 4.2, `svc draft`): a package too large for one upload is cut at Problem
 * boundaries. Every shard carries the shared part (campaign.json and every root-level mechanism:
 * skills/, review-protocol.json, verifier-contract.json, fixtures/, checkers, anything at the
 * campaign root) and a slug-ordered run of problems, so each shard is a package that lints and
 * reconciles on its own. This module is pure: it plans with sizes measured elsewhere.
 */

/** One file as the planner sees it. */
export interface ShardFile {
  path: string;
  /** Unpacked size in bytes. */
  size: number;
  /** An upper bound of the bytes the file adds to a ZIP (compressed data and both headers). */
  zipped: number;
}

/** One problem package: its slug and every file under its directory. */
export interface ShardProblem {
  slug: string;
  dir: string;
  files: ShardFile[];
}

export interface ShardInput {
  /** Files outside every problem directory; each shard carries all of them. */
  shared: ShardFile[];
  /** Problems in any order; shards take them in slug order. Empty for a campaign with none. */
  problems: ShardProblem[];
}

/** Per-shard ceilings. */
export interface ShardLimits {
  maxProblems: number;
  maxFiles: number;
  maxZippedBytes: number;
  maxUnpackedBytes: number;
}

const MiB = 1024 * 1024;

/**
 * The CLI's shard ceilings (spec section 8), well inside the server's archive ceilings (5000
 * files, 64 MiB zipped, 256 MiB unpacked) so one shard validates and publishes in one call.
 */
export const CLI_SHARD_LIMITS = {
  maxProblems: 300,
  maxFiles: 3000,
  maxZippedBytes: 24 * MiB,
  maxUnpackedBytes: 100 * MiB,
} as const satisfies ShardLimits;

/** Bytes a ZIP adds once, whatever it holds: the end records, ZIP64 ones included. */
export const ZIP_ARCHIVE_OVERHEAD = 22 + 56 + 20;

/** One planned shard: the slugs it publishes and the files its archive holds. */
export interface PlannedShard {
  index: number;
  slugs: string[];
  /** Every path of the shard, shared files first, then each problem's, in the order given. */
  paths: string[];
  files: number;
  unpackedBytes: number;
  /** An upper bound of the archive's size. */
  zippedBytes: number;
}

export type ShardPlanResult =
  | { ok: true; shards: PlannedShard[] }
  | { ok: false; slug: string | null; message: string };

/**
 * Cuts a package into shards: problems in slug order, each shard filled greedily until the next
 * problem would break a ceiling. The same input gives the same shards. Fails when the shared part,
 * or the shared part with a single problem, is already over a ceiling: that cannot be split.
 */
export function planShards(input: ShardInput, limits: ShardLimits = CLI_SHARD_LIMITS): ShardPlanResult {
  const shared = measure(input.shared);
  shared.zipped += ZIP_ARCHIVE_OVERHEAD;
  const overShared = breach(shared, 0, limits);
  if (overShared) return { ok: false, slug: null, message: `the shared files alone are over ${overShared}` };

  const problems = [...input.problems].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const groups: Array<{ problems: ShardProblem[]; total: Totals }> = [];
  for (const problem of problems) {
    const own = measure(problem.files);
    const over = breach(add(shared, own), 1, limits);
    if (over) {
      return {
        ok: false,
        slug: problem.slug,
        message: `problem ${problem.slug} with the shared files is over ${over}; one problem is never split across shards`,
      };
    }
    const last = groups.at(-1);
    if (last && !breach(add(last.total, own), last.problems.length + 1, limits)) {
      last.problems.push(problem);
      last.total = add(last.total, own);
    } else {
      groups.push({ problems: [problem], total: add(shared, own) });
    }
  }
  // A campaign without problems still publishes its root.
  if (groups.length === 0) groups.push({ problems: [], total: shared });
  const sharedPaths = input.shared.map((f) => f.path);
  const shards = groups.map(
    (group, index): PlannedShard => ({
      index,
      slugs: group.problems.map((p) => p.slug),
      paths: [...sharedPaths, ...group.problems.flatMap((p) => p.files.map((f) => f.path))],
      files: group.total.files,
      unpackedBytes: group.total.size,
      zippedBytes: group.total.zipped,
    }),
  );
  return { ok: true, shards };
}

interface Totals {
  files: number;
  size: number;
  zipped: number;
}

function measure(files: readonly ShardFile[]): Totals {
  let size = 0;
  let zipped = 0;
  for (const f of files) {
    size += f.size;
    zipped += f.zipped;
  }
  return { files: files.length, size, zipped };
}

function add(a: Totals, b: Totals): Totals {
  return { files: a.files + b.files, size: a.size + b.size, zipped: a.zipped + b.zipped };
}

/** The first ceiling `t` breaks, described for the author, or null when it fits. */
function breach(t: Totals, problems: number, limits: ShardLimits): string | null {
  if (problems > limits.maxProblems) return `the ceiling of ${limits.maxProblems} problems per shard`;
  if (t.files > limits.maxFiles)
    return `the ceiling of ${limits.maxFiles} files per shard (${t.files} files)`;
  if (t.zipped > limits.maxZippedBytes) {
    return `the ceiling of ${limits.maxZippedBytes} bytes zipped per shard (about ${t.zipped} bytes)`;
  }
  if (t.size > limits.maxUnpackedBytes) {
    return `the ceiling of ${limits.maxUnpackedBytes} bytes unpacked per shard (${t.size} bytes)`;
  }
  return null;
}
