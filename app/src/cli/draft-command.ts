import { join } from "node:path";
import type { ValidationConformance } from "@svc/schemas";
import { CONFORMANCE_WAIT_MS } from "../client/authoring-steps.ts";
import { CLI_SHARD_LIMITS, type ShardLimits } from "../client/plan-shards.ts";
import { publishPackage } from "../client/publish-package.ts";
import { type PublishState, readPublishState, writePublishState } from "../client/publish-state.ts";
import { type PublishedFailure, staysCurrent } from "../client/stays-current.ts";
import { lastValidatedUpload, writeUploadRecord } from "../client/upload-record.ts";
import { DeflateCache } from "../tree/deflate-cache.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, CONFORMANCE_FAILED, UsageError } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";
import { formatDraft, formatFailure, formatPublishedFailures } from "./format-draft.ts";
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
 * refusals or a service that stayed unavailable, 2 on a usage error, 3 when everything was
 * published but a planned checker failed its own conformance fixtures at validation: the failures
 * are printed with the checker's output and the implementation each stage keeps as current.
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
  // Shared checkers travel in every shard: each failed fixture of each implementation once.
  const failed = new Map<string, ValidationConformance>();
  let saved: PublishState | null = null;
  // Unchanged files are not deflated again (the archives stay byte for byte the same).
  const deflateCacheFile = join(dir, ".svc", "deflate-cache.bin");
  const deflateCache = DeflateCache.load(deflateCacheFile);
  try {
    const { summary, failure } = await publishPackage({
      client,
      tree: linted.tree,
      deflate: deflateCache.deflate,
      plan: linted.lint.plan,
      planHash: linted.lint.plan_hash,
      server,
      limits,
      previous: options.fresh ? null : await readPublishState(dir),
      verify: options.verify,
      save: (state) => {
        saved = state;
        return writePublishState(dir, state);
      },
      retry: { sleep: deps.sleep, random: deps.random },
      // Sandboxed fixtures run queued on the service: wait for them (bounded), as svc upload does,
      // so a checker that fails them is reported before the run ends.
      conformanceWait: {
        sleep: deps.sleep,
        onProgress: (waited) => {
          if (waited % 30_000 !== 0) return;
          bar?.end();
          io.stderr(
            `svc draft: conformance fixtures queued on the service; waited ${waited / 1000} s of ${CONFORMANCE_WAIT_MS / 1000}\n`,
          );
        },
      },
      now: deps.now,
      onEvent: (event) => {
        bar?.onEvent(event);
        if (event.kind === "conformance_failed") {
          for (const f of event.failures) failed.set(`${f.implementation}\0${f.stage_key}\0${f.fixture}`, f);
        }
        if (event.kind === "retry") {
          bar?.end();
          io.stderr(retryNotice(`shard ${event.shard + 1} ${event.step}`, event));
        }
      },
    });
    bar?.end();
    const skipped = new Set(summary.shards.filter((s) => s.status === "skipped").map((s) => s.index));
    const upload = saved && lastValidatedUpload(saved, skipped);
    if (upload) await writeUploadRecord(dir, upload);
    const failures: PublishedFailure[] =
      failed.size === 0
        ? []
        : await staysCurrent(client, summary.ids.verifier_contract_ids, [...failed.values()]);
    if (options.json) {
      const error = failure ? { error: { ...failure, message: formatFailure(failure, summary).trim() } } : {};
      // The spec's keys, plus `conformance_failures` when a checker failed its fixtures.
      const failed = failures.length > 0 ? { conformance_failures: failures } : {};
      io.stdout(`${JSON.stringify({ ...summary, ...failed, ...error }, null, 2)}\n`);
    } else {
      if (!failure) io.stdout(formatDraft(summary, { color: io.color }));
      io.stdout(formatPublishedFailures(failures, { color: io.color }));
    }
    if (failure) {
      io.stderr(formatFailure(failure, summary));
      return 1;
    }
    return failures.length > 0 ? CONFORMANCE_FAILED : 0;
  } finally {
    bar?.end();
    deflateCache.save(deflateCacheFile);
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
