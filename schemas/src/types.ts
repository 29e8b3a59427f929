/**
 * Types of the package files and of the plan, as `checkSchema` returns them: every field with a
 * schema default is present. Hand-written to match `schemas/json/`; the tests type their examples
 * with these, so a schema change that breaks them shows up in typecheck.
 *
 * Glossary:
 * - package: a directory of files an author publishes (problem.json, statement.md, ...).
 * - slot: a reference input a Contract declares (`reference_inputs[]`); a binding gives it bytes.
 * - sealed: bytes withheld from participants until a release time.
 * - plan: what the files say to publish, computed from files only; mechanisms keyed by content hash.
 */
import type { CheckerResult, ResultKind, RuleOwner, ScoreDirection, StageKind, Structure } from "./enums.ts";
import type { ReviewProtocolDocument, SkillRef, SkillRequirement } from "./review-protocol-types.ts";
import type { CampaignAuthoredStatus, EntriesMode, MetricDirection, ScoreReleaseMode } from "./work-enums.ts";

/** problem.json `skills[]`: an `skv_` id (requirement `required`) or the object form. */
export type ProblemSkill = string | SkillRef;

export interface Benchmark {
  metric_name: string;
  direction: MetricDirection;
  unit: string | null;
  baseline: number | null;
}

export interface ScoreRelease {
  mode: ScoreReleaseMode;
  /** Null for `immediate`; the release time for `final_only`. */
  release_at: string | null;
}

export interface SubmissionLimit {
  max_submissions: number;
  window_hours: number;
}

/** Sealing as authored in problem.json; the service adds unsealed_at, release_event, evaluation_id. */
export interface Sealing {
  sealed_until: string;
  submission_closes_at: string | null;
  score_release: ScoreRelease;
  submission_limit: SubmissionLimit;
  entries: EntriesMode;
}

export interface ProblemFile {
  slug: string;
  title: string;
  summary: string;
  structure: Structure;
  priority_weight: number;
  campaign?: string;
  verifier_contract?: string;
  skills?: ProblemSkill[];
  benchmark?: Benchmark;
  revision_note?: string;
  sealing?: Sealing;
}

export interface CampaignFile {
  slug: string;
  title: string;
  summary: string;
  description_md: string;
  status: CampaignAuthoredStatus;
}

export interface ReferenceInputSlot {
  key: string;
  required: boolean;
  media_types: string[];
  max_bytes: number;
  description: string;
  sealed: boolean;
}

/** Optional per-stage resource limits; absent ones take the service defaults. */
export interface StageLimits {
  memory_mb?: number;
  vcpu?: number;
  disk_mb?: number;
  timeout_seconds?: number;
}

export interface ContractStage {
  key: string;
  kind: StageKind;
  title: string;
  description_md: string;
  evidence_schema: Record<string, unknown> | null;
  /** "./review-protocol.json" or an `rpt_` id on review stages. */
  review_protocol_id: string | null;
  rule_owner: RuleOwner;
  acceptance: string;
  external_system: string | null;
  /** Sandbox only, like the three fields after it. */
  implementation?: string | null;
  /** Omitted means every slot is mounted; [] mounts none. */
  reference_input_slots?: string[] | null;
  result_kind?: ResultKind | null;
  limits?: StageLimits | null;
}

export interface RequiredArtifact {
  role: string;
  description: string;
  media_types: string[];
  max_bytes: number;
}

export interface SubmissionRequirements {
  required_artifacts: RequiredArtifact[];
  accepts_text_only: boolean;
  answer_format_md: string | null;
}

export interface ContractScore {
  unit: string;
  description: string;
  direction?: ScoreDirection;
}

/** A fixture file; `svc lint --fix` fills content_hash and size_bytes. */
export interface FixtureFile {
  filename: string;
  content_hash?: string;
  size_bytes?: number;
}

export interface FixtureArtifact extends FixtureFile {
  role: string;
}

export interface FixtureInputs {
  /** Slot key to the file bound to it. */
  reference: Record<string, FixtureFile>;
  artifacts: FixtureArtifact[];
}

export interface ConformanceFixture {
  key: string;
  stage_key: string;
  description: string;
  inputs: FixtureInputs;
  expected_result: CheckerResult;
  expected_score?: number;
}

export interface VerifierContractFile {
  title: string;
  statement_md: string;
  reference_inputs: ReferenceInputSlot[];
  stages: ContractStage[];
  submission_requirements: SubmissionRequirements;
  result_kind: ResultKind;
  score: ContractScore | null;
  conformance_fixtures: ConformanceFixture[];
}

/** reference/<key>.link.json */
export interface LinkFile {
  url: string;
  content_hash: string;
  size_bytes: number;
  media_type: string;
  filename: string;
}

export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  metadata?: Record<string, unknown>;
}

export interface PlanSkillFile {
  path: string;
  content_hash: string;
  size_bytes: number;
}

export interface PlanSkill {
  content_hash: string;
  name: string;
  description: string;
  files: PlanSkillFile[];
}

/** A review protocol or verifier contract document, defaults applied, with its content hash. */
export interface PlanDocument<D extends object = object> {
  content_hash: string;
  document: D;
}

export interface ImplementationRuntime {
  kind: "container";
  image_ref: string;
  image_digest: string;
}

export interface ImplementationLimits {
  vcpu: number;
  memory_mb: number;
  disk_mb: number;
  timeout_seconds: number;
  network: "none";
}

export interface CheckerProgram {
  filename: string;
  content_hash: string;
  size_bytes: number;
}

export interface PlanImplementationStage {
  /** Content hash of the Contract. */
  verifier_contract: string;
  stage_key: string;
}

export interface PlanVerifierImplementation {
  content_hash: string;
  runtime: ImplementationRuntime;
  entrypoint: string[];
  limits: ImplementationLimits;
  program: CheckerProgram | null;
  /** Present only when the package states it; publication stores it (null keys otherwise). */
  source?: ImplementationSource;
  stages: PlanImplementationStage[];
}

export interface PlanSkillUse {
  /** Content hash of a skills/<name>/ directory. */
  skill: string;
  requirement: SkillRequirement;
}

export interface PlanReferenceInput {
  key: string;
  filename: string;
  media_type: string;
  content_hash: string;
  size_bytes: number;
  /** The link url of a linked binding; null for stored bytes. */
  url: string | null;
  sealed: boolean;
}

export interface PlanProblem {
  dir: string;
  slug: string;
  structure: Structure;
  title: string;
  summary: string;
  priority_weight: number;
  campaign_slug: string | null;
  statement_md: string;
  benchmark: Benchmark | null;
  revision_note: string | null;
  skills: PlanSkillUse[];
  published_skills: SkillRef[];
  reference_inputs: PlanReferenceInput[];
  /** Content hash of the package's Contract. */
  verifier_contract: string | null;
  /** A published `vct_` id named in problem.json. */
  published_verifier_contract: string | null;
  /** Content hashes. */
  verifier_implementations: string[];
  /** Content hash of the package's review protocol. */
  review_protocol: string | null;
  sealing: Sealing | null;
}

export interface Plan {
  campaign: CampaignFile | null;
  /** Keyed by content hash, like the three maps after it. */
  skills: Record<string, PlanSkill>;
  review_protocols: Record<string, PlanDocument<ReviewProtocolDocument>>;
  verifier_contracts: Record<string, PlanDocument<VerifierContractFile>>;
  verifier_implementations: Record<string, PlanVerifierImplementation>;
  problems: PlanProblem[];
}

/** A VerifierImplementation's `source` (spec 2.2): all three keys, each null when unknown. */
export interface ImplementationSource {
  source_uri: string | null;
  /** An exact commit. */
  source_revision: string | null;
  /** An SPDX license id. */
  license: string | null;
}

/** verifier-implementation.json: implementations for sandbox stages that do not name one inline. */
export interface VerifierImplementationFile {
  implementations: Array<{
    stage_key: string;
    implementation: string;
    limits?: StageLimits;
    source?: ImplementationSource;
  }>;
}
