/**
 * @svc/app: the authoring core (read a package, lint it, plan it), the checker sandbox, the typed
 * client of the service, the checks the App and the Action post, and the `svc` command line. The
 * service, the App, the Action, the end-to-end tests and the benchmarks import it from here only.
 *
 * Its folders are layers, low to high; a folder imports only folders listed before it, never one
 * after it (app/test/layering.test.ts checks it), so no two folders import each other:
 *
 *   hash          sha256 and RFC 8785 canonical JSON
 *   catalogue     what an implementation may name (builtins, runtimes, images) and media types
 *   tree          FileTree: one read-only view of a package (directory, ZIP, Git commit, memory)
 *   lint          lint passes 1-6 and the review-protocol rules: lintTree(tree) -> LintResult
 *   plan          buildPlan(lintResult) -> Plan and planHash; lintPackage = lint, then plan
 *   sandbox       the checker contract and its backends (builtin, bwrap, docker)
 *   verification  local verification of a published problem's stages
 *   attestation   DSSE envelopes, the run Statement, the log's Merkle tree and signed checkpoints
 *   client        the service's client (HTTP and MCP), retries, shards, publication
 *   checks        one package's check: lint, the service's verdict, annotations, summary
 *   cli           the `svc` commands
 *
 * Lint records (LintRecord, LintCode, NoteCode, pointer) are wire types of @svc/schemas, below
 * every folder; they are re-exported here for callers that read them with the rest of lint.
 */

export type { Reconciliation } from "@svc/schemas";
export { LintCode, type LintNote, type LintRecord, NoteCode, pointer } from "@svc/schemas";
export {
  type DsseEnvelope,
  IN_TOTO_PAYLOAD_TYPE,
  keyIdOf,
  openEnvelope,
  signEnvelope,
} from "./attestation/dsse.ts";
export {
  consistencyRanges,
  emptyRoot,
  foldRange,
  inclusionRanges,
  type LeafRange,
  leafHash,
  MemoryMerkleTree,
  type NodeId,
  nodeHash,
  perfectNodes,
  verifyConsistency,
  verifyInclusion,
} from "./attestation/merkle.ts";
export {
  type Commitment,
  commitmentOf,
  type Opening,
  RUN_PREDICATE_TYPE,
  type RunPredicate,
  type RunPredicateStage,
  type RunStatement,
  STATEMENT_TYPE,
} from "./attestation/run-statement.ts";
export {
  type Checkpoint,
  noteVerifierKey,
  openCheckpoint,
  openNote,
  parseNoteVerifierKey,
  publicKeyFromRaw,
  rawPublicKey,
  signCheckpoint,
} from "./attestation/signed-note.ts";
export { catalogueDigest, PYTHON_RUNTIME } from "./catalogue/implementation-catalogue.ts";
export { mediaTypeOf } from "./catalogue/media-type.ts";
export { AnnotationLevel, type CheckAnnotation, checkAnnotations } from "./checks/check-annotations.ts";
export { askService, checkPackage, type PackageCheck } from "./checks/check-package.ts";
export { checkRepository } from "./checks/check-repository.ts";
export { CheckConclusion, checkConclusion, checkCounts, checkTitle } from "./checks/check-verdict.ts";
export { CHECK_SUMMARY_MAX_BYTES, formatCheckSummary } from "./checks/format-check-summary.ts";
export { type PublishOutcome, publishValidated } from "./checks/publish-validated.ts";
export type { CliDeps } from "./cli/cli-deps.ts";
export { type CliIo, processIo, UsageError } from "./cli/cli-io.ts";
export { scaffoldPackage } from "./cli/scaffold-package.ts";
export { CONFORMANCE_WAIT_MS } from "./client/authoring-steps.ts";
export { openServiceClient, type ServiceClient } from "./client/service-client.ts";
export type { RetryOptions } from "./client/with-retries.ts";
export { type ContentHash, canonicalJson, hashJson, sha256 } from "./hash/sha256.ts";
export { applyFixtureFixes } from "./lint/apply-fixture-fixes.ts";
export { type ConfigProblem, HOSTED_PROVIDERS, type HostedProvider } from "./lint/hosted-providers.ts";
export type { FixtureFix } from "./lint/lint-context.ts";
export type {
  CheckedPackage,
  CheckedProblem,
  CleanLintResult,
  FailedLintResult,
  LintResult,
} from "./lint/lint-result.ts";
export { type LintOptions, lintTree } from "./lint/lint-tree.ts";
export { buildPlan } from "./plan/build-plan.ts";
export { type LintReport, lintPackage } from "./plan/lint-package.ts";
export { planHash } from "./plan/plan-hash.ts";
export { createBuiltinBackend, isBuiltin, runBuiltin } from "./sandbox/builtin-backend.ts";
export { bwrapIsolation, createBwrapBackend, SANDBOX_UID } from "./sandbox/bwrap-backend.ts";
export {
  BackendName,
  type CheckerImplementation,
  type CheckerJob,
  type CheckerLimits,
  type CheckerOutcome,
  type EvidenceFile,
  type InputFile,
  type KeepEvidence,
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
export { processAlive } from "./sandbox/process-alive.ts";
export { type Backends, machineOutcome, type RunCheckerOptions, runChecker } from "./sandbox/run-checker.ts";
export {
  type ConformanceReport,
  type ConformanceRequest,
  type FixtureFileRef,
  type FixtureResult,
  runConformance,
} from "./sandbox/run-conformance.ts";
export { chainIdOf, prepareRuntimeRootfs, RUNTIME_SOURCE } from "./sandbox/runtime-rootfs.ts";
export { type RawRun, settleOutcome } from "./sandbox/settle-outcome.ts";
export { checkerImplementation, mountedSlots, stageJob } from "./sandbox/stage-job.ts";
export { escapedText, hasBidiControl } from "./tree/bidi-control.ts";
export { bytesTree } from "./tree/bytes-tree.ts";
export { comparePaths } from "./tree/compare-paths.ts";
export { type FetchGitCommitOptions, fetchGitCommit } from "./tree/fetch-git-commit.ts";
export {
  type ArchiveLimits,
  type FileTree,
  isIgnoredPath,
  SERVER_ARCHIVE_LIMITS,
  TreeError,
} from "./tree/file-tree.ts";
export { findGitPackages, PACKAGE_LIST_MAX_BYTES } from "./tree/find-git-packages.ts";
export { findPackages, PACKAGE_LIST_FILE, type PackageDiscovery } from "./tree/find-packages.ts";
export { memoryTree } from "./tree/memory-tree.ts";
export { openDirectoryTree } from "./tree/open-directory-tree.ts";
export { type GitFile, type GitSource, listGitFiles, openGitTree } from "./tree/open-git-tree.ts";
export { openZipTree } from "./tree/open-zip-tree.ts";
export { pointerToLine } from "./tree/pointer-to-line.ts";
export { zipTree } from "./tree/zip-tree.ts";
export {
  ConformanceStatus,
  currentImplementation,
  currentImplementations,
  type ImplementationCandidate,
  type ImplementationChoice,
} from "./verification/current-implementation.ts";
export {
  type FinishedStage,
  MAX_EVIDENCE_CHARS,
  type RunVerdict,
  runContinues,
  runVerdict,
  truncateEvidence,
} from "./verification/run-verdict.ts";
export { stageBindings } from "./verification/stage-bindings.ts";
