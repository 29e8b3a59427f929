import { hasConflicts, type Plan, type Reconciliation } from "@svc/schemas";
import { emptyCounts, type Validation } from "../client/authoring-results.ts";
import { packArchive, putArchive, requestUpload, validateUpload } from "../client/authoring-steps.ts";
import { measurePackage } from "../client/measure-package.ts";
import { CLI_SHARD_LIMITS, planShards, type ShardLimits } from "../client/plan-shards.ts";
import { ServiceCallError } from "../client/service-call-error.ts";
import type { ServiceClient } from "../client/service-client.ts";
import { type RetryOptions, withRetries } from "../client/with-retries.ts";
import type { FileTree } from "../tree/file-tree.ts";

/** One shard of a package as the service validated it. */
export interface ValidatedShard {
  index: number;
  paths: string[];
  slugs: string[];
  upload_id: string;
  /** The plan_hash validation stored for this upload (the package's own when there is one shard). */
  plan_hash: string | null;
  validation: Validation;
}

/** A package's validation: one per shard, merged into one reconciliation for reports. */
export interface PackageValidation {
  /** Every shard valid, and no conflict. */
  valid: boolean;
  /** All shards' validation errors and reconciliations, merged in slug order. */
  validation: Validation;
  shards: ValidatedShard[];
}

/**
 * Asks the service what publishing a linted package would do: cut into shards as `svc draft`
 * does (one shard for most packages), then each shard through request, PUT and
 * validate_authoring_upload (waiting, bounded, for fixtures the service queued), each step retried
 * on transient failures. Nothing is published. The
 * shards are validated one after another against today's state, so for a package of several
 * shards the report is what each would do if published now. Rejects with a ServiceCallError when
 * the service refuses or stays unavailable, or the package cannot be sharded.
 */
export async function validatePackage(
  client: ServiceClient,
  tree: FileTree,
  plan: Plan,
  options: {
    limits?: ShardLimits;
    retry?: RetryOptions;
    onConformanceWait?: (waitedMs: number) => void;
  } = {},
): Promise<PackageValidation> {
  const limits = options.limits ?? CLI_SHARD_LIMITS;
  const planned = planShards(await measurePackage(tree, plan, limits), limits);
  if (!planned.ok) throw new ServiceCallError("too_large", planned.message, { transient: false });
  const shards: ValidatedShard[] = [];
  for (const shard of planned.shards) {
    const archive = await packArchive(tree, shard.paths);
    const upload = await withRetries(() => requestUpload(client, archive), options.retry);
    await withRetries((attempt) => putArchive(client, upload, archive, attempt), options.retry);
    // Sandboxed fixtures run queued on the service: wait for them, bounded (CONFORMANCE_WAIT_MS).
    const wait = { sleep: options.retry?.sleep, onProgress: options.onConformanceWait };
    const validation = await withRetries(() => validateUpload(client, upload.upload_id, wait), options.retry);
    shards.push({
      index: shard.index,
      paths: shard.paths,
      slugs: shard.slugs,
      upload_id: upload.upload_id,
      plan_hash: validation.plan_hash,
      validation,
    });
  }
  const validation = mergeValidations(shards.map((s) => s.validation));
  return { valid: validation.valid && !hasConflicts(validation.reconciliation), validation, shards };
}

/** One validation from several shards': the first shard's campaign, every problem once, summed counts. */
export function mergeValidations(validations: readonly Validation[]): Validation {
  if (validations.length === 1) return validations[0]!;
  const reconciled = validations.map((v) => v.reconciliation).filter((r): r is Reconciliation => r !== null);
  const reconciliation: Reconciliation | null =
    reconciled.length === 0
      ? null
      : {
          campaign: reconciled[0]!.campaign,
          problems: reconciled
            .flatMap((r) => r.problems)
            .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0)),
          counts: reconciled.reduce((sum, r) => {
            for (const key of Object.keys(sum) as Array<keyof typeof sum>) sum[key] += r.counts[key] ?? 0;
            return sum;
          }, emptyCounts()),
          warnings: reconciled.flatMap((r) => r.warnings),
        };
  return {
    valid: validations.every((v) => v.valid),
    // Shared files travel in every shard: the same error once.
    errors: [
      ...new Map(
        validations.flatMap((v) => v.errors).map((e) => [`${e.file}\0${e.path}\0${e.code}`, e]),
      ).values(),
    ],
    notes: validations.flatMap((v) => v.notes),
    // Shared checkers travel in every shard too: each fixture of each implementation once.
    conformance: [
      ...new Map(
        validations
          .flatMap((v) => v.conformance)
          .map((c) => [`${c.implementation}\0${c.stage_key}\0${c.fixture}`, c]),
      ).values(),
    ],
    plan_hash: null,
    reconciliation,
  };
}
