import type { ValidationConformance, ValidationError } from "@svc/schemas";
import type { Deflate } from "../../tree/deflate-cache.ts";
import type { FileTree } from "../../tree/file-tree.ts";
import { failedConformance, type Publication } from "../authoring-results.ts";
import {
  type Archive,
  packArchive,
  publishUpload,
  putArchive,
  requestUpload,
  validateUpload,
} from "../authoring-steps.ts";
import type { ShardState } from "../publish-state.ts";
import { ServiceCallError } from "../service-call-error.ts";
import type { ServiceClient } from "../service-client.ts";
import { type RetryOptions, withRetries } from "../with-retries.ts";
import {
  type DraftStep,
  initialStepState,
  publishStep,
  type StepAction,
  type StepEvent,
} from "./publish-step.ts";

/** What a run reports while it works (progress bar, retry notices). */
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
  /** Validation ran the shard's fixtures and a planned checker failed some: publishing goes on. */
  | { kind: "conformance_failed"; shard: number; failures: ValidationConformance[] }
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

export interface DriveShardOptions {
  client: ServiceClient;
  /** The package; the shard's archive is packed from `paths` of it. */
  tree: FileTree;
  paths: readonly string[];
  /** The shard's archive, packed from `paths` already: the first request uploads it without packing again. */
  archive?: Archive;
  /** How files are deflated when the archive is packed (a DeflateCache's: the same bytes). */
  deflate?: Deflate;
  /** The shard's record, updated in place after every step and handed to `save`. */
  state: ShardState;
  /** The plan_hash the caller reviewed for exactly these files; nothing else is ever published. */
  reviewedPlanHash: string;
  /** Whether the state's upload comes from an earlier run (a refusal then earns one fresh start). */
  resumed?: boolean;
  save?: () => Promise<void>;
  retry?: Omit<RetryOptions, "onRetry">;
  /**
   * Wait, bounded, for fixtures the service queued at validation before publishing (`svc draft`,
   * so a checker that fails its own fixtures is told); without it the validation is read as it is.
   */
  conformanceWait?: Parameters<typeof validateUpload>[2];
  now?: () => Date;
  emit?: (event: DraftEvent) => void;
}

export type ShardOutcome =
  | { ok: true; publication: Publication | null }
  | { ok: false; failure: DraftFailure };

/**
 * The publish engine's driver: performs publishStep's actions for one shard against the service
 * (request, PUT, validate, publish, each retried on transient failures), feeds the outcomes back,
 * and keeps `state` (the `.svc/publish-state.json` record of `svc draft`) current after every step.
 * Ends when the shard is published (`publication` null when it already was) or the step function
 * gives up.
 */
export async function driveShard(options: DriveShardOptions): Promise<ShardOutcome> {
  const { client, tree, state: s } = options;
  const index = s.index;
  const save = options.save ?? (async () => {});
  const now = options.now ?? (() => new Date());
  const emit = options.emit ?? (() => {});
  const call = async <T>(name: DraftStep, fn: (attempt: number) => Promise<T>): Promise<T> => {
    emit({ kind: "step", shard: index, step: name });
    return withRetries(
      async (attempt) => {
        s.attempts += 1;
        return fn(attempt);
      },
      {
        ...options.retry,
        onRetry: ({ attempt, error, waitMs }) =>
          emit({ kind: "retry", shard: index, step: name, attempt, waitMs, error }),
      },
    );
  };

  let step = initialStepState(s, options.reviewedPlanHash, options.resumed);
  let publication: Publication | null = null;
  // The archive and URL of this run's own request, for the PUT that follows it.
  let archive: Archive | null = null;
  let packed: Archive | null = options.archive ?? null;
  let uploadUrl = s.upload_url;
  let result = publishStep(step, { kind: "begin" });
  // Each fresh start is earned once, so a shard takes a bounded number of steps.
  for (let steps = 0; ; steps++) {
    if (steps > 64) throw new Error(`the publish engine made no progress on shard ${index}`);
    step = result.state;
    Object.assign(s, { status: step.status, upload_id: step.upload_id, plan_hash: step.plan_hash });
    const action = result.action;
    switch (action.kind) {
      case "done":
        if (publication) record(s, publication, now());
        s.error = null;
        await save();
        return { ok: true, publication };
      case "invalid":
        s.error = { code: "invalid", message: describeInvalid(action.errors, action.conflicts) };
        await save();
        return {
          ok: false,
          failure: { kind: "invalid", shard: index, errors: action.errors, conflicts: action.conflicts },
        };
      case "stale":
        s.error = { code: action.code, message: action.message };
        await save();
        return {
          ok: false,
          failure: { kind: "stale", shard: index, code: action.code, message: action.message },
        };
      case "refused":
        s.error = { code: action.code, message: action.message };
        await save();
        return {
          ok: false,
          failure: {
            kind: action.transient ? "unavailable" : "refused",
            shard: index,
            step: action.step,
            code: action.code,
            message: action.message,
          },
        };
      case "request":
        if (action.fresh !== null) {
          emit({ kind: "fresh_upload", shard: index, code: action.fresh });
          Object.assign(s, { upload_url: null, error: null });
        }
        break;
      default:
        break;
    }
    await save();
    result = publishStep(step, await perform(action));
  }

  /** Performs one action; its outcome, a failure included, as the next event. */
  async function perform(
    action: Exclude<StepAction, { kind: "done" | "invalid" | "stale" | "refused" }>,
  ): Promise<StepEvent> {
    const name: DraftStep = action.kind;
    try {
      switch (action.kind) {
        case "request": {
          const request = packed ?? (await packArchive(tree, options.paths, options.deflate));
          packed = null;
          if (s.content_hash && request.content_hash !== s.content_hash) {
            throw new ServiceCallError(
              "package_changed",
              "the package changed while it was being published; run svc draft again",
              { transient: false },
            );
          }
          const upload = await call(name, () => requestUpload(client, request));
          archive = request;
          uploadUrl = upload.upload_url;
          s.upload_url = upload.upload_url;
          return { kind: "requested", upload_id: upload.upload_id };
        }
        case "put": {
          const bytes = archive ?? (await packArchive(tree, options.paths, options.deflate));
          const upload = {
            upload_id: action.upload_id,
            upload_url: uploadUrl ?? "",
            expires_at: "",
            max_bytes: 0,
          };
          await call(name, (attempt) => putArchive(client, upload, bytes, attempt));
          archive = null;
          return { kind: "put" };
        }
        case "validate": {
          const validation = await call(name, () =>
            validateUpload(client, action.upload_id, options.conformanceWait),
          );
          const reconciliation = validation.reconciliation;
          Object.assign(s, {
            counts: reconciliation?.counts ?? null,
            campaign: reconciliation?.campaign ?? null,
            reconciliation: reconciliation?.problems ?? null,
          });
          const failures = failedConformance(validation);
          if (failures.length > 0) emit({ kind: "conformance_failed", shard: index, failures });
          return { kind: "validated", validation };
        }
        case "publish":
          publication = await call(name, () => publishUpload(client, action.upload_id, action.plan_hash));
          return { kind: "published" };
      }
    } catch (error) {
      if (!(error instanceof ServiceCallError)) throw error;
      return {
        kind: "failed",
        step: name,
        code: error.code,
        message: error.message,
        transient: error.transient,
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
