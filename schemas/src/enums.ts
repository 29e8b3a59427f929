/**
 * Closed sets shared by code and schemas. Each is an `as const` object with its type derived from
 * it; the JSON Schemas in `schemas/json/` hold the same values, and a test checks they agree.
 */

/** A Problem's structure; immutable once published. */
export const Structure = { SOLVE: "SOLVE", BENCHMARK: "BENCHMARK", DISCOVERY: "DISCOVERY" } as const;
export type Structure = (typeof Structure)[keyof typeof Structure];

/** How a Contract stage is carried out. */
export const StageKind = { sandbox: "sandbox", review: "review", external: "external" } as const;
export type StageKind = (typeof StageKind)[keyof typeof StageKind];

/** What a Contract (or one sandbox stage) produces. */
export const ResultKind = { pass_fail: "pass_fail", score: "score" } as const;
export type ResultKind = (typeof ResultKind)[keyof typeof ResultKind];

/** Outcome of a VerificationRun or stage; `error` means the service's own machinery failed. */
export const RunResult = {
  verified: "verified",
  refuted: "refuted",
  inconclusive: "inconclusive",
  error: "error",
} as const;
export type RunResult = (typeof RunResult)[keyof typeof RunResult];

/** What a checker may report, and what a conformance fixture expects: never `error`. */
export const CheckerResult = {
  verified: "verified",
  refuted: "refuted",
  inconclusive: "inconclusive",
} as const;
export type CheckerResult = (typeof CheckerResult)[keyof typeof CheckerResult];

/** Status of a VerificationRun or stage result; forward-only. */
export const RunStatus = { queued: "queued", running: "running", finished: "finished" } as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/** What publishing a package does to one Problem (spec section 3). */
export const ReconciliationAction = {
  create: "create",
  update: "update",
  revise: "revise",
  noop: "noop",
  conflict: "conflict",
} as const;
export type ReconciliationAction = (typeof ReconciliationAction)[keyof typeof ReconciliationAction];
