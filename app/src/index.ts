/** The authoring core: read a package, lint it, plan it. Shared by the CLI, the service, the App and the Action. */
export { type ContentHash, canonicalJson, hashJson, sha256 } from "./hash/sha256.ts";
export { applyFixtureFixes } from "./lint/apply-fixture-fixes.ts";
export { type LintOptions, type LintResult, lintPackage } from "./lint/lint-package.ts";
export { LintCode, type LintNote, type LintRecord, NoteCode, pointer } from "./lint/lint-record.ts";
export { mediaTypeOf } from "./lint/media-type.ts";
export { buildPlan } from "./plan/build-plan.ts";
export { planHash } from "./plan/plan-hash.ts";
