import type { Plan } from "@svc/schemas";
import type { Deflate } from "../tree/deflate-cache.ts";
import type { FileTree } from "../tree/file-tree.ts";
import { type ActionCounts, emptyCounts } from "./authoring-results.ts";
import { type Archive, packArchive } from "./authoring-steps.ts";
import { measurePackage } from "./measure-package.ts";
import { CLI_SHARD_LIMITS, type PlannedShard, planShards, type ShardLimits } from "./plan-shards.ts";
import {
  type DraftEvent,
  type DraftFailure,
  type DriveShardOptions,
  driveShard,
} from "./publish-engine/drive-publish.ts";
import { reviewedPlanHash } from "./publish-engine/reviewed-plan-hash.ts";
import type { ProblemOutcome, PublishedIds, PublishState, ShardState } from "./publish-state.ts";
import type { ServiceClient } from "./service-client.ts";
import type { RetryOptions } from "./with-retries.ts";

export type { DraftEvent, DraftFailure } from "./publish-engine/drive-publish.ts";
export { DraftStep } from "./publish-engine/publish-step.ts";

/**
 * `svc draft` without the terminal: shard a linted package, then take each shard through
 * request -> PUT -> validate -> publish (spec 4.2) with the publish engine (publish-engine/),
 * reviewing each shard with the local lint of exactly the files it sends: the service must plan
 * them to the same plan_hash, or the shard is refused with `stale_plan_hash` and nothing of it is
 * published. Each step is retried on transient failures; `stale_plan_hash` and
 * `stale_server_state` from publish earn the shard exactly one fresh upload; a validation error, a
 * conflict or a refusal stops the run. The state is saved after every step.
 */
export interface PublishPackageOptions {
  client: ServiceClient;
  tree: FileTree;
  /** The plan and plan_hash lint computed for the whole package. */
  plan: Plan;
  planHash: string;
  /** The server the state belongs to. */
  server: string;
  limits?: ShardLimits;
  /** The state of an earlier run (null with --fresh or when there is none). */
  previous: PublishState | null;
  /** Replay every shard, published ones included (--verify). */
  verify?: boolean;
  save(state: PublishState): Promise<void>;
  retry?: Omit<RetryOptions, "onRetry">;
  /** Wait for fixtures the service queued at validation (DriveShardOptions.conformanceWait). */
  conformanceWait?: DriveShardOptions["conformanceWait"];
  now?: () => Date;
  onEvent?: (event: DraftEvent) => void;
  /** How files are deflated when shards are packed (a DeflateCache's: the same bytes). */
  deflate?: Deflate;
}

/** The `--json` summary (spec 4.2), exactly these keys. */
export interface DraftSummary {
  ok: boolean;
  campaign: { slug: string; action: string; campaign_id: string | null } | null;
  problems_total: number;
  planned_shards: number;
  published_shards: number;
  skipped_shards: number;
  counts: ActionCounts;
  problems: ProblemOutcome[];
  ids: PublishedIds;
  shards: Array<{
    index: number;
    content_hash: string;
    size_bytes: number;
    slugs: string[];
    status: string;
    upload_id: string | null;
    plan_hash: string | null;
    attempts: number;
  }>;
  published_at: string | null;
}

export interface DraftResult {
  summary: DraftSummary;
  failure: DraftFailure | null;
}

export async function publishPackage(options: PublishPackageOptions): Promise<DraftResult> {
  const now = options.now ?? (() => new Date());
  const limits = options.limits ?? CLI_SHARD_LIMITS;
  const emit = options.onEvent ?? (() => {});

  const previous = options.previous?.server === options.server ? options.previous : null;
  // With no earlier run to skip shards by (or --verify), every shard goes to the service: its
  // session opens while the shards are measured and packed.
  if (previous === null || options.verify) options.client.openEarly?.();
  const planned = planShards(await measurePackage(options.tree, options.plan, limits), limits);
  if (!planned.ok) {
    return {
      summary: summarize(options.plan, [], new Set(), false, null),
      failure: { kind: "too_large", slug: planned.slug, message: planned.message },
    };
  }

  // Archives are packed here for their hashes. Their bytes are kept for the upload while they
  // add up to one shard's ceiling (a package of one shard is packed once); the others are packed
  // again when uploaded: holding every shard's bytes could take gigabytes for a large campaign.
  const held = new Map<number, Archive>();
  let heldBytes = 0;
  const carried = new Map((previous?.shards ?? []).map((s) => [s.content_hash, s]));
  const skipped = new Set<number>();
  const shards: ShardState[] = [];
  for (const shard of planned.shards) {
    const archive = await packArchive(options.tree, shard.paths, options.deflate);
    const before = carried.get(archive.content_hash);
    if (before && !options.verify && before.status === "published") {
      skipped.add(shard.index);
      shards.push({ ...before, index: shard.index, slugs: shard.slugs, attempts: 0 });
    } else if (
      before &&
      !options.verify &&
      (before.status === "uploaded" || before.status === "validated") &&
      before.upload_id !== null
    ) {
      shards.push({ ...before, index: shard.index, slugs: shard.slugs, attempts: 0, error: null });
    } else {
      shards.push(blankShard(shard, archive.content_hash, archive.size_bytes, now()));
    }
    if (!skipped.has(shard.index) && heldBytes + archive.size_bytes <= limits.maxZippedBytes) {
      held.set(shard.index, archive);
      heldBytes += archive.size_bytes;
    }
  }
  const state: PublishState = {
    version: 1,
    server: options.server,
    package_plan_hash: options.planHash,
    limits,
    shards,
    updated_at: now().toISOString(),
  };
  const save = async () => {
    state.updated_at = now().toISOString();
    await options.save(state);
  };
  await save();
  emit({ kind: "planned", shards: shards.length, skipped: skipped.size });

  for (const shard of planned.shards) {
    if (skipped.has(shard.index)) {
      emit({ kind: "shard_done", shard: shard.index, status: "skipped" });
      continue;
    }
    const outcome = await driveShard({
      client: options.client,
      tree: options.tree,
      paths: shard.paths,
      archive: held.get(shard.index),
      deflate: options.deflate,
      state: state.shards[shard.index]!,
      reviewedPlanHash: await reviewedPlanHash(options.tree, shard, planned.shards.length, options.planHash),
      save,
      retry: options.retry,
      conformanceWait: options.conformanceWait,
      now,
      emit,
    });
    held.delete(shard.index);
    if (!outcome.ok) {
      return {
        summary: summarize(options.plan, state.shards, skipped, false, null),
        failure: outcome.failure,
      };
    }
    emit({ kind: "shard_done", shard: shard.index, status: "published" });
  }
  return {
    summary: summarize(options.plan, state.shards, skipped, true, now().toISOString()),
    failure: null,
  };
}

function blankShard(shard: PlannedShard, contentHash: string, size: number, at: Date): ShardState {
  return {
    index: shard.index,
    content_hash: contentHash,
    size_bytes: size,
    slugs: shard.slugs,
    status: "planned",
    attempts: 0,
    upload_id: null,
    upload_url: null,
    plan_hash: null,
    counts: null,
    campaign: null,
    reconciliation: null,
    problems: null,
    ids: null,
    error: null,
    updated_at: at.toISOString(),
  };
}

/** The summary of a run from its shard states. */
function summarize(
  plan: Plan,
  shards: readonly ShardState[],
  skipped: ReadonlySet<number>,
  ok: boolean,
  publishedAt: string | null,
): DraftSummary {
  const counts = emptyCounts();
  const problems: ProblemOutcome[] = [];
  const ids: PublishedIds = {
    campaign_id: null,
    skill_version_ids: [],
    verifier_contract_ids: [],
    verifier_implementation_ids: [],
    review_protocol_ids: [],
  };
  const addIds = (more: PublishedIds | null) => {
    if (!more) return;
    ids.campaign_id ??= more.campaign_id;
    for (const key of [
      "skill_version_ids",
      "verifier_contract_ids",
      "verifier_implementation_ids",
      "review_protocol_ids",
    ] as const) {
      for (const id of more[key]) if (!ids[key].includes(id)) ids[key].push(id);
    }
  };
  for (const s of shards) {
    if (s.status !== "published") continue;
    addIds(s.ids);
    if (skipped.has(s.index)) {
      // Unchanged since it was published: publishing it again would change nothing.
      counts.noop += s.slugs.length;
      for (const p of s.problems ?? []) problems.push({ ...p, action: "noop" });
    } else {
      for (const [action, n] of Object.entries(s.counts ?? {})) {
        if (action in counts) counts[action as keyof ActionCounts] += n;
      }
      problems.push(...(s.problems ?? []));
    }
  }
  problems.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));

  let campaign: DraftSummary["campaign"] = null;
  if (plan.campaign) {
    const first = shards[0];
    const action =
      first === undefined ? "none" : skipped.has(first.index) ? "reuse" : (first.campaign?.action ?? "none");
    campaign = { slug: plan.campaign.slug, action, campaign_id: ids.campaign_id };
  }
  return {
    ok,
    campaign,
    problems_total: plan.problems.length,
    planned_shards: shards.length,
    published_shards: shards.filter((s) => s.status === "published" && !skipped.has(s.index)).length,
    skipped_shards: skipped.size,
    counts,
    problems,
    ids,
    shards: shards.map((s) => ({
      index: s.index,
      content_hash: s.content_hash,
      size_bytes: s.size_bytes,
      slugs: s.slugs,
      status: skipped.has(s.index) ? "skipped" : s.status,
      upload_id: s.upload_id,
      plan_hash: s.plan_hash,
      attempts: s.attempts,
    })),
    published_at: publishedAt,
  };
}
