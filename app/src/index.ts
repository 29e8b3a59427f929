/** The authoring core: read a package, lint it, plan it. Shared by the CLI, the service, the App and the Action. */

export { LintCode, type LintNote, type LintRecord, NoteCode, pointer } from "@svc/schemas";
export { mediaTypeOf } from "./catalogue/media-type.ts";
export { type ContentHash, canonicalJson, hashJson, sha256 } from "./hash/sha256.ts";
export { applyFixtureFixes } from "./lint/apply-fixture-fixes.ts";
export { type ConfigProblem, HOSTED_PROVIDERS, type HostedProvider } from "./lint/hosted-providers.ts";
export { type LintOptions, lintTree } from "./lint/lint-tree.ts";
export { buildPlan } from "./plan/build-plan.ts";
export { type LintReport, lintPackage } from "./plan/lint-package.ts";
export { planHash } from "./plan/plan-hash.ts";
export { createBuiltinBackend, isBuiltin, runBuiltin } from "./sandbox/builtin-backend.ts";
export { createBwrapBackend } from "./sandbox/bwrap-backend.ts";
export {
  BackendName,
  type CheckerImplementation,
  type CheckerJob,
  type CheckerLimits,
  type CheckerOutcome,
  CheckerResult,
  type EvidenceFile,
  type InputFile,
  LimitName,
  type RuntimeBinding,
  type SandboxBackend,
  type StageResult,
} from "./sandbox/checker-job.ts";
export {
  bwrapRuns,
  type DetectedSandbox,
  type DetectSandboxOptions,
  detectSandbox,
} from "./sandbox/detect-sandbox.ts";
export { createDockerBackend, pingDocker } from "./sandbox/docker-backend.ts";
export { evidenceDigest } from "./sandbox/evidence-digest.ts";
export { buildManifest, type CheckerManifest, layOutInput } from "./sandbox/lay-out-input.ts";
export { type Backends, machineOutcome, type RunCheckerOptions, runChecker } from "./sandbox/run-checker.ts";
export {
  type ConformanceReport,
  type ConformanceRequest,
  type FixtureFileRef,
  type FixtureResult,
  runConformance,
} from "./sandbox/run-conformance.ts";
export { type RawRun, settleOutcome } from "./sandbox/settle-outcome.ts";
export { checkerImplementation, mountedSlots, stageJob } from "./sandbox/stage-job.ts";
