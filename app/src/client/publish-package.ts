import type { Plan } from "@svc/schemas";
import type { FileTree } from "../tree/file-tree.ts";
import {
  type ActionCounts,
  emptyCounts,
  type Publication,
  type ValidationError,
} from "./authoring-results.ts";
import { packArchive, publishUpload, putArchive, requestUpload, validateUpload } from "./authoring-steps.ts";
import { measurePackage } from "./measure-package.ts";
import { CLI_SHARD_LIMITS, type PlannedShard, planShards, type ShardLimits } from "./plan-shards.ts";
import type { ProblemOutcome, PublishedIds, PublishState, ShardState } from "./publish-state.ts";
import { ServiceCallError } from "./service-call-error.ts";
import type { ServiceClient } from "./service-client.ts";
import { type RetryOptions, withRetries } from "./with-retries.ts";

/**
 * `svc draft` without the terminal: shard a linted package, then take each shard through
 * request -> PUT -> validate -> publish (spec 4.2). Each step is retried on transient failures;
 * `stale_plan_hash` and `stale_server_state` earn the shard exactly one fresh upload; a validation
 * error, a conflict or a refusal stops the run. The state is saved after every step.
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
  now?: () => Date;
  onEvent?: (event: DraftEvent) => void;
}

export const DraftStep = {
  request: "request",
  put: "put",
  validate: "validate",
  publish: "publish",
} as const;
export type DraftStep = (typeof DraftStep)[keyof typeof DraftStep];

/** What the run reports while it works (progress bar, retry notices). */
export type DraftEvent =
  | { kind: "planned"; shards: number; skipped: number }
  | { kind: "step"; shard: number; step: DraftStep }
  | {
      kind: "retry";
      shard: number;
      step: DraftStep;
      attempt: number;
      waitMs: number;
      error: ServiceCallError;
    }
  | { kind: "fresh_upload"; shard: number; code: string }
  | { kind: "shard_done"; shard: number; status: "published" | "skipped" };

/** Why a run stopped. */
export type DraftFailure =
  | { kind: "too_large"; slug: string | null; message: string }
  | {
      kind: "invalid";
      shard: number;
      errors: ValidationError[];
      conflicts: Array<{ slug: string; reason: string }>;
    }
  | { kind: "refused"; shard: number; step: DraftStep; code: string; message: string }
  | { kind: "unavailable"; shard: number; step: DraftStep; code: string; message: string }
  | { kind: "stale"; shard: number; code: string; message: string };

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

/** Codes of publish_authoring_upload that mean "validate again" (spec section 7). */
const STALE_CODES: ReadonlySet<string> = new Set(["stale_plan_hash", "stale_server_state"]);

export async function publishPackage(options: PublishPackageOptions): Promise<DraftResult> {
  const now = options.now ?? (() => new Date());
  const limits = options.limits ?? CLI_SHARD_LIMITS;
  const emit = options.onEvent ?? (() => {});

  const planned = planShards(await measurePackage(options.tree, options.plan), limits);
  if (!planned.ok) {
    return {
      summary: summarize(options.plan, [], new Set(), false, null),
      failure: { kind: "too_large", slug: planned.slug, message: planned.message },
    };
  }

  // Archives are packed here for their hashes and packed again when uploaded: holding every
  // shard's bytes at once could take gigabytes for a large campaign.
  const previous = options.previous?.server === options.server ? options.previous : null;
  const carried = new Map((previous?.shards ?? []).map((s) => [s.content_hash, s]));
  const skipped = new Set<number>();
  const shards: ShardState[] = [];
  for (const shard of planned.shards) {
    const archive = await packArchive(options.tree, shard.paths);
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
    const failure = await runShard(shard, state.shards[shard.index]!, options, save, now, emit);
    if (failure) {
      return { summary: summarize(options.plan, state.shards, skipped, false, null), failure };
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

/** One shard from wherever its state stands to published; a failure, or null when published. */
async function runShard(
  shard: PlannedShard,
  s: ShardState,
  options: PublishPackageOptions,
  save: () => Promise<void>,
  now: () => Date,
  emit: (event: DraftEvent) => void,
): Promise<DraftFailure | null> {
  const { client, tree } = options;
  // A resumed upload the service no longer accepts earns one fresh start; so does a stale plan.
  let resumed = s.status !== "planned";
  let freshUsed = false;
  const step = async <T>(name: DraftStep, fn: (attempt: number) => Promise<T>): Promise<T> => {
    emit({ kind: "step", shard: shard.index, step: name });
    return withRetries(
      async (attempt) => {
        s.attempts += 1;
        return fn(attempt);
      },
      {
        ...options.retry,
        onRetry: ({ attempt, error, waitMs }) =>
          emit({ kind: "retry", shard: shard.index, step: name, attempt, waitMs, error }),
      },
    );
  };
  const startOver = async () => {
    Object.assign(s, { status: "planned", upload_id: null, upload_url: null, plan_hash: null, error: null });
    await save();
  };

  for (;;) {
    let current: DraftStep = "request";
    try {
      if (s.status === "planned" || s.status === "requested" || s.status === "invalid") {
        const archive = await packArchive(tree, shard.paths);
        if (archive.content_hash !== s.content_hash) {
          throw new ServiceCallError(
            "package_changed",
            "the package changed while it was being published; run svc draft again",
            { transient: false },
          );
        }
        current = "request";
        const upload = await step(current, () => requestUpload(client, archive));
        Object.assign(s, { status: "requested", upload_id: upload.upload_id, upload_url: upload.upload_url });
        await save();
        current = "put";
        await step(current, (attempt) => putArchive(client, upload, archive, attempt));
        s.status = "uploaded";
        await save();
      }
      if (s.status === "uploaded") {
        current = "validate";
        const validation = await step(current, () => validateUpload(client, s.upload_id!));
        const reconciliation = validation.reconciliation;
        const conflicts = (reconciliation?.problems ?? [])
          .filter((p) => p.action === "conflict")
          .map((p) => ({ slug: p.slug, reason: p.reason ?? "conflict" }));
        if (reconciliation?.campaign?.action === "conflict") {
          conflicts.unshift({
            slug: reconciliation.campaign.slug,
            reason: "the campaign is owned by another user",
          });
        }
        Object.assign(s, {
          plan_hash: validation.plan_hash,
          counts: reconciliation?.counts ?? null,
          campaign: reconciliation?.campaign ?? null,
          reconciliation: reconciliation?.problems ?? null,
        });
        if (!validation.valid || conflicts.length > 0 || validation.plan_hash === null) {
          s.status = "invalid";
          s.error = { code: "invalid", message: describeInvalid(validation.errors, conflicts) };
          await save();
          return { kind: "invalid", shard: shard.index, errors: validation.errors, conflicts };
        }
        s.status = "validated";
        await save();
      }
      current = "publish";
      const publication = await step(current, () => publishUpload(client, s.upload_id!, s.plan_hash!));
      record(s, publication, now());
      await save();
      return null;
    } catch (error) {
      if (!(error instanceof ServiceCallError)) throw error;
      if (current === "publish" && STALE_CODES.has(error.code)) {
        if (freshUsed) {
          s.error = { code: error.code, message: error.message };
          await save();
          return { kind: "stale", shard: shard.index, code: error.code, message: error.message };
        }
        freshUsed = true;
        resumed = false;
        emit({ kind: "fresh_upload", shard: shard.index, code: error.code });
        await startOver();
        continue;
      }
      if (resumed && !error.transient) {
        resumed = false;
        emit({ kind: "fresh_upload", shard: shard.index, code: error.code });
        await startOver();
        continue;
      }
      // The status stays at the last step that succeeded, so a rerun resumes from there.
      s.error = { code: error.code, message: error.message };
      await save();
      return {
        kind: error.transient ? "unavailable" : "refused",
        shard: shard.index,
        step: current,
        code: error.code,
        message: error.message,
      };
    }
  }
}

/** Stores a publication on its shard: one outcome per slug, in slug order. */
function record(s: ShardState, publication: Publication, at: Date): void {
  const published = new Map(publication.problems.map((p) => [p.slug, p]));
  const reconciled = new Map((s.reconciliation ?? []).map((p) => [p.slug, p]));
  s.problems = s.slugs.map((slug) => {
    const p = published.get(slug);
    const r = reconciled.get(slug);
    return {
      slug,
      action: r?.action ?? "noop",
      problem_id: p?.problem_id ?? r?.problem_id ?? null,
      problem_revision_id: p?.problem_revision_id ?? r?.current_revision_id ?? null,
      revision_number: p?.revision_number ?? null,
    };
  });
  const campaignId =
    publication.campaign_id ??
    campaignIdOf(publication.campaign) ??
    (s.campaign?.campaign_id as string | undefined) ??
    null;
  s.ids = {
    campaign_id: campaignId,
    skill_version_ids: publication.skill_version_ids,
    verifier_contract_ids: publication.verifier_contract_ids,
    verifier_implementation_ids: publication.verifier_implementation_ids,
    review_protocol_ids: publication.review_protocol_ids,
  };
  if (s.campaign && campaignId) s.campaign = { ...s.campaign, campaign_id: campaignId };
  s.status = "published";
  s.error = null;
  s.updated_at = at.toISOString();
}

function campaignIdOf(campaign: unknown): string | undefined {
  if (!campaign || typeof campaign !== "object") return undefined;
  const c = campaign as { campaign_id?: unknown; id?: unknown };
  const id = c.campaign_id ?? c.id;
  return typeof id === "string" ? id : undefined;
}

function describeInvalid(
  errors: ValidationError[],
  conflicts: Array<{ slug: string; reason: string }>,
): string {
  const parts = [
    ...errors.map((e) => `${e.file} ${e.path || "(file)"} [${e.code}] ${e.message}`),
    ...conflicts.map((c) => `conflict ${c.slug}: ${c.reason}`),
  ];
  return parts.join("; ") || "the service found the upload invalid";
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
