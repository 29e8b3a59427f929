import { CLI_SHARD_LIMITS, type ShardLimits } from "../client/plan-shards.ts";
import { publishPackage } from "../client/publish-package.ts";
import { readPublishState, writePublishState } from "../client/publish-state.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";
import { formatDraft, formatFailure } from "./format-draft.ts";
import { openLintedPackage } from "./open-linted-package.ts";
import { progressBar } from "./progress-bar.ts";
import { retryNotice } from "./retry-notice.ts";

export interface DraftOptions {
  json?: boolean;
  fresh?: boolean;
  verify?: boolean;
  shardProblems?: string;
  shardBytes?: string;
  server?: string;
}

/**
 * `svc draft <dir>` and `svc publish <dir>` (identical, spec 4.2): lint once, shard, and take
 * each shard through request, PUT, validate and publish, keeping `<dir>/.svc/publish-state.json`.
 * Exit 0 when every shard is published or skipped, 1 on lint errors, validation errors, conflicts,
 * refusals or a service that stayed unavailable, 2 on a usage error.
 */
export async function draftCommand(
  dir: string,
  options: DraftOptions,
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const limits: ShardLimits = {
    ...CLI_SHARD_LIMITS,
    maxProblems: ceiling("--shard-problems", options.shardProblems, CLI_SHARD_LIMITS.maxProblems),
    maxZippedBytes: ceiling("--shard-bytes", options.shardBytes, CLI_SHARD_LIMITS.maxZippedBytes),
  };
  const linted = await openLintedPackage(dir, io, options);
  if (!linted) return 1;
  const { client, server } = await connectService(options, deps);
  const bar = io.progress ? progressBar(io.stderr) : null;
  try {
    const { summary, failure } = await publishPackage({
      client,
      tree: linted.tree,
      plan: linted.lint.plan,
      planHash: linted.lint.plan_hash,
      server,
      limits,
      previous: options.fresh ? null : await readPublishState(dir),
      verify: options.verify,
      save: (state) => writePublishState(dir, state),
      retry: { sleep: deps.sleep, random: deps.random },
      now: deps.now,
      onEvent: (event) => {
        bar?.onEvent(event);
        if (event.kind === "retry") {
          bar?.end();
          io.stderr(retryNotice(`shard ${event.shard + 1} ${event.step}`, event));
        }
      },
    });
    bar?.end();
    if (options.json) {
      const error = failure ? { error: { ...failure, message: formatFailure(failure, summary).trim() } } : {};
      io.stdout(`${JSON.stringify({ ...summary, ...error }, null, 2)}\n`);
    } else if (!failure) {
      io.stdout(formatDraft(summary, { color: io.color }));
    }
    if (failure) {
      io.stderr(formatFailure(failure, summary));
      return 1;
    }
    return 0;
  } finally {
    bar?.end();
    await client.close();
  }
}

/** A `--shard-*` value: a positive integer no larger than the default ceiling, which it lowers. */
function ceiling(flag: string, value: string | undefined, max: number): number {
  if (value === undefined) return max;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`${flag} takes a positive integer, not "${value}"`);
  const n = Number(value);
  if (n > max) throw new UsageError(`${flag} can only lower the ceiling of ${max}; got ${value}`);
  return n;
}
