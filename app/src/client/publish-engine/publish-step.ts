import type { ValidationError } from "@svc/schemas";
import { hasConflicts, isStale } from "@svc/schemas";
import type { Validation } from "../authoring-results.ts";
import type { ShardStatus } from "../publish-state.ts";

/**
 * The publish engine's rule book, as a pure function: where one shard stands and what just
 * happened -> where it stands now and what to do next. The driver (drive-publish.ts) performs the
 * actions against the service and feeds their outcomes back as events; `svc draft`, the GitHub
 * App and the Action all publish through it.
 *
 * The guard: a shard is published only with the plan_hash its caller reviewed (the CLI's local
 * lint of exactly the files sent, the App's check run, the Action's own lint), and only after a
 * validation of the same upload whose plan_hash equals it. A validation that plans differently is
 * refused as `stale_plan_hash` before anything is published (the service plans from the files
 * alone, so uploading the same files again cannot help). A `stale_*` refusal of the publication
 * itself earns exactly one fresh upload, validation and publication; so does a resumed upload
 * the service no longer accepts. Transient failures are retried by the driver within a step.
 */
export const DraftStep = {
  request: "request",
  put: "put",
  validate: "validate",
  publish: "publish",
} as const;
export type DraftStep = (typeof DraftStep)[keyof typeof DraftStep];

export interface StepState {
  status: ShardStatus;
  upload_id: string | null;
  /** The plan_hash the service's last validation of `upload_id` computed. */
  plan_hash: string | null;
  /** The plan_hash the caller reviewed; the only one ever sent to publish_authoring_upload. */
  reviewed_plan_hash: string;
  /** The shard started from an earlier run's upload (a refusal then earns one fresh start). */
  resumed: boolean;
  /** The one fresh start a stale refusal earns has been used. */
  fresh_used: boolean;
}

export type StepEvent =
  | { kind: "begin" }
  | { kind: "requested"; upload_id: string }
  | { kind: "put" }
  | { kind: "validated"; validation: Validation }
  | { kind: "published" }
  | { kind: "failed"; step: DraftStep; code: string; message: string; transient: boolean };

export type StepAction =
  | { kind: "request"; fresh: string | null }
  | { kind: "put"; upload_id: string }
  | { kind: "validate"; upload_id: string }
  | { kind: "publish"; upload_id: string; plan_hash: string }
  | { kind: "done" }
  | { kind: "invalid"; errors: ValidationError[]; conflicts: Array<{ slug: string; reason: string }> }
  | { kind: "stale"; code: string; message: string }
  | { kind: "refused"; step: DraftStep; code: string; message: string; transient: boolean };

export interface StepResult {
  state: StepState;
  action: StepAction;
}

/** The state a shard starts a run with: its persisted status and upload, and what was reviewed. */
export function initialStepState(
  shard: { status: ShardStatus; upload_id: string | null; plan_hash: string | null },
  reviewedPlanHash: string,
  resumed?: boolean,
): StepState {
  const hasUpload = shard.upload_id !== null && (shard.status === "uploaded" || shard.status === "validated");
  return {
    status: hasUpload || shard.status === "published" ? shard.status : "planned",
    upload_id: hasUpload || shard.status === "published" ? shard.upload_id : null,
    plan_hash: hasUpload || shard.status === "published" ? shard.plan_hash : null,
    reviewed_plan_hash: reviewedPlanHash,
    resumed: resumed ?? hasUpload,
    fresh_used: false,
  };
}

/** One step of the engine. Pure: the same state and event always give the same result. */
export function publishStep(state: StepState, event: StepEvent): StepResult {
  switch (event.kind) {
    case "begin":
      return next(state);
    case "requested":
      if (state.status !== "planned") return next(state);
      return {
        state: { ...state, status: "requested", upload_id: event.upload_id, plan_hash: null },
        action: { kind: "put", upload_id: event.upload_id },
      };
    case "put":
      if (state.status !== "requested" || state.upload_id === null) return next(state);
      return next({ ...state, status: "uploaded" });
    case "validated":
      return validated(state, event.validation);
    case "published":
      if (state.status !== "validated") return next(state);
      return { state: { ...state, status: "published" }, action: { kind: "done" } };
    case "failed":
      return failed(state, event);
  }
}

/** What to do from a status, with nothing new to answer. */
function next(state: StepState): StepResult {
  switch (state.status) {
    case "planned":
    case "requested":
    case "invalid":
      return { state, action: { kind: "request", fresh: null } };
    case "uploaded":
      if (state.upload_id === null)
        return { state: restart(state), action: { kind: "request", fresh: null } };
      return { state, action: { kind: "validate", upload_id: state.upload_id } };
    case "validated":
      if (state.upload_id === null)
        return { state: restart(state), action: { kind: "request", fresh: null } };
      // Only an upload validated into the reviewed plan is published; anything else is validated again.
      if (state.plan_hash !== state.reviewed_plan_hash) {
        return {
          state: { ...state, status: "uploaded" },
          action: { kind: "validate", upload_id: state.upload_id },
        };
      }
      return {
        state,
        action: { kind: "publish", upload_id: state.upload_id, plan_hash: state.reviewed_plan_hash },
      };
    case "published":
      return { state, action: { kind: "done" } };
  }
}

function validated(state: StepState, validation: Validation): StepResult {
  if ((state.status !== "uploaded" && state.status !== "validated") || state.upload_id === null) {
    return next(state);
  }
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
  if (!validation.valid || hasConflicts(reconciliation) || validation.plan_hash === null) {
    return {
      state: { ...state, status: "invalid", plan_hash: validation.plan_hash },
      action: { kind: "invalid", errors: validation.errors, conflicts },
    };
  }
  if (validation.plan_hash !== state.reviewed_plan_hash) {
    return {
      state: { ...state, status: "uploaded", plan_hash: validation.plan_hash },
      action: {
        kind: "stale",
        code: "stale_plan_hash",
        message: `the service plans upload ${state.upload_id} to plan_hash ${validation.plan_hash}, but the reviewed plan_hash is ${state.reviewed_plan_hash}: the files sent do not plan as reviewed; nothing was published`,
      },
    };
  }
  return next({ ...state, status: "validated", plan_hash: validation.plan_hash });
}

function failed(state: StepState, event: Extract<StepEvent, { kind: "failed" }>): StepResult {
  if (event.step === "publish" && isStale(event.code)) {
    if (state.fresh_used) {
      return { state, action: { kind: "stale", code: event.code, message: event.message } };
    }
    return {
      state: { ...restart(state), fresh_used: true, resumed: false },
      action: { kind: "request", fresh: event.code },
    };
  }
  if (state.resumed && !event.transient) {
    return { state: { ...restart(state), resumed: false }, action: { kind: "request", fresh: event.code } };
  }
  // The status stays at the last step that succeeded, so a rerun resumes from there.
  return {
    state,
    action: {
      kind: "refused",
      step: event.step,
      code: event.code,
      message: event.message,
      transient: event.transient,
    },
  };
}

function restart(state: StepState): StepState {
  return { ...state, status: "planned", upload_id: null, plan_hash: null };
}
