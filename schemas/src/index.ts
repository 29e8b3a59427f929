/**
 * @svc/schemas: the JSON Schemas (draft 2020-12) of every svc package file and record, their
 * validators, the closed enums they share with code, and the types of validated values.
 */
export { checkSchema, type SchemaCheck, validateOwned } from "./check-schema.ts";
export {
  CheckerResult,
  ReconciliationAction,
  ResultKind,
  RunResult,
  RunStatus,
  StageKind,
  Structure,
} from "./enums.ts";
export type { SchemaIssue } from "./format-issues.ts";
export { pointer } from "./json-pointer.ts";
export { LintCode, type LintNote, type LintRecord, NoteCode } from "./lint-record.ts";
export {
  type AllowedAgent,
  type Assistance,
  type CoalesceConfig,
  type Conflicts,
  type Eligibility,
  EligibilityRule,
  HiddenItem,
  type KOfNConfig,
  NodeType,
  type Policy,
  type Predicate,
  type PredicateClause,
  PredicateOp,
  type ProtocolNode,
  ProtocolPurpose,
  REVIEW_LANGUAGE_VERSION,
  type ReduceConfig,
  ReduceOp,
  ReduceOutcome,
  ReviewerKind,
  type Reviewers,
  type ReviewProtocolDocument,
  type Rubric,
  RubricDemand,
  type Scalar,
  type SkillRef,
  SkillRequirement,
  SubjectKind,
  ThresholdAggregate,
  type ThresholdConfig,
  type Visibility,
  type When,
} from "./review-protocol-types.ts";
export { schemaDocument } from "./schema-document.ts";
export type { SchemaName } from "./schema-name.ts";
export type {
  Benchmark,
  CampaignFile,
  CheckerProgram,
  ConformanceFixture,
  ContractScore,
  ContractStage,
  FixtureArtifact,
  FixtureFile,
  FixtureInputs,
  ImplementationLimits,
  ImplementationRuntime,
  LinkFile,
  Plan,
  PlanDocument,
  PlanImplementationStage,
  PlanProblem,
  PlanReferenceInput,
  PlanSkill,
  PlanSkillFile,
  PlanSkillUse,
  PlanVerifierImplementation,
  ProblemFile,
  ProblemSkill,
  ReferenceInputSlot,
  RequiredArtifact,
  ScoreRelease,
  Sealing,
  SkillFrontmatter,
  StageLimits,
  SubmissionLimit,
  SubmissionRequirements,
  VerifierContractFile,
  VerifierImplementationFile,
} from "./types.ts";
export {
  type CompileUserSchemaResult,
  compileUserSchema,
  type UserSchemaIssue,
  type UserSchemaValidate,
} from "./user-schema.ts";
