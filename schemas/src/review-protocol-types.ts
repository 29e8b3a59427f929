/**
 * Types of a review protocol document (`svc.review/v0.1`) as it is AFTER the document schema
 * (`review-protocol-document.schema.json`) validated it with defaults applied: every optional
 * node field is present, null when absent.
 *
 * Glossary:
 * - review node: people or agents judge the subject under a rubric and return a structured response.
 * - reduce node: a deterministic operation from a closed catalogue over earlier outputs; never a model.
 * - outcome: what a reduce node emits (accept, reject, unresolved); `when` conditions on it.
 * - output: the reduce node whose outcome is the protocol's outcome.
 *
 * The schema only checks shapes. Type-dependent fields (a review node's `reviewers`, a reduce
 * node's `op`...) are nullable on every node here because the numbered rules, not the schema,
 * say which must be null; code narrows them after checking `type`.
 */

/** The constant document version. */
export const REVIEW_LANGUAGE_VERSION = "svc.review/v0.1";

export const ProtocolPurpose = {
  acceptance: "acceptance",
  triage: "triage",
  ranking: "ranking",
  audit: "audit",
} as const;
export type ProtocolPurpose = (typeof ProtocolPurpose)[keyof typeof ProtocolPurpose];

export const SubjectKind = {
  submission: "submission",
  problem_proposal: "problem_proposal",
  campaign_proposal: "campaign_proposal",
} as const;
export type SubjectKind = (typeof SubjectKind)[keyof typeof SubjectKind];

export const NodeType = { review: "review", reduce: "reduce" } as const;
export type NodeType = (typeof NodeType)[keyof typeof NodeType];

export const ReduceOutcome = { accept: "accept", reject: "reject", unresolved: "unresolved" } as const;
export type ReduceOutcome = (typeof ReduceOutcome)[keyof typeof ReduceOutcome];

/** The closed catalogue of reduce operations. */
export const ReduceOp = { k_of_n: "k_of_n", threshold: "threshold", coalesce: "coalesce" } as const;
export type ReduceOp = (typeof ReduceOp)[keyof typeof ReduceOp];

export const ReviewerKind = { human: "human", agent: "agent" } as const;
export type ReviewerKind = (typeof ReviewerKind)[keyof typeof ReviewerKind];

export const EligibilityRule = {
  any_participant: "any_participant",
  organization_members: "organization_members",
  campaign_reviewers: "campaign_reviewers",
  named_users: "named_users",
} as const;
export type EligibilityRule = (typeof EligibilityRule)[keyof typeof EligibilityRule];

export const HiddenItem = {
  submitter_identity: "submitter_identity",
  submitter_organization: "submitter_organization",
  prior_scores: "prior_scores",
  attempt_notes: "attempt_notes",
} as const;
export type HiddenItem = (typeof HiddenItem)[keyof typeof HiddenItem];

export const SkillRequirement = { required: "required", recommended: "recommended" } as const;
export type SkillRequirement = (typeof SkillRequirement)[keyof typeof SkillRequirement];

/** Whether a rubric field must be supplied on every completed assignment. */
export const RubricDemand = { required: "required", optional: "optional" } as const;
export type RubricDemand = (typeof RubricDemand)[keyof typeof RubricDemand];

export const PredicateOp = { eq: "eq", in: "in" } as const;
export type PredicateOp = (typeof PredicateOp)[keyof typeof PredicateOp];

export const ThresholdAggregate = { mean: "mean", median: "median", min: "min", max: "max" } as const;
export type ThresholdAggregate = (typeof ThresholdAggregate)[keyof typeof ThresholdAggregate];

export interface ReviewProtocolDocument {
  version: typeof REVIEW_LANGUAGE_VERSION;
  purpose: ProtocolPurpose;
  title: string;
  subject_kind: SubjectKind;
  nodes: ProtocolNode[];
  /** The id of the reduce node whose outcome is the protocol's outcome. */
  output: string;
  policy: Policy;
}

export interface ProtocolNode {
  id: string;
  type: NodeType;
  title: string | null;
  when: When | null;
  reviewers: Reviewers | null;
  visibility: NodeVisibility | null;
  conflicts: Conflicts | null;
  skills: SkillRef[] | null;
  rubric: Rubric | null;
  inputs: string[] | null;
  op: ReduceOp | null;
  /** Shaped by `op`: {@link KOfNConfig} for k_of_n, {@link ThresholdConfig} for threshold. */
  config: ReduceConfig | null;
}

/** The node runs only when reduce node `node` emitted `outcome`. */
export interface When {
  node: string;
  outcome: ReduceOutcome;
}

export interface Reviewers {
  kind: ReviewerKind;
  count: number;
  independent: boolean;
  eligibility: Eligibility | null;
  allowed: AllowedAgent[] | null;
  assistance: Assistance | null;
}

export interface Eligibility {
  rule: EligibilityRule;
  organization_id: string | null;
  user_ids: string[] | null;
}

/** A hosted agent reviewer the service itself invokes. */
export interface AllowedAgent {
  provider: string;
  model: string;
  /** Provider-specific settings; part of the reviewer identity for this protocol. */
  config: Record<string, unknown>;
}

export interface Assistance {
  required: boolean;
  /** Empty means any declared assistance is acceptable. */
  allowed: Array<{ provider: string; model: string }>;
}

export interface NodeVisibility {
  prior_nodes: string[];
  stage_evidence: boolean;
  hidden: HiddenItem[];
}

export interface Conflicts {
  exclude_submitter: boolean;
  exclude_submitter_organization: boolean;
}

export interface SkillRef {
  /** A `skv_` id, or `./skills/<name>` inside a package. */
  skill_version_id: string;
  requirement: SkillRequirement;
}

export interface Rubric {
  instructions_md: string;
  /** An author's JSON Schema (draft 2020-12) for the structured `response`. */
  response_schema: Record<string, unknown>;
  rationale: RubricDemand;
  citations: { min_items: number };
  confidence: RubricDemand;
}

/** A JSON scalar: what k_of_n predicates compare. */
export type Scalar = string | number | boolean | null;

export interface Predicate {
  op: PredicateOp;
  /** A scalar for `eq`, a non-empty array of scalars for `in` (rule 13; the schema leaves it open). */
  value: unknown;
}

export interface PredicateClause {
  predicate: Predicate;
  k: number;
}

export interface KOfNConfig {
  field: string;
  accept: PredicateClause;
  reject: PredicateClause;
}

export interface ThresholdConfig {
  field: string;
  aggregate: ThresholdAggregate;
  accept_gte: number;
  reject_lt: number;
}

/** coalesce takes no configuration; the schema accepts any object and rule 15 demands `{}`. */
export type CoalesceConfig = Record<string, unknown>;

export type ReduceConfig = KOfNConfig | ThresholdConfig | CoalesceConfig;

export interface Policy {
  assignment_timeout_hours: number;
  /** Default 120; must be shorter than the assignment timeout. */
  claim_hold_minutes: number;
  /** Deprecated and ignored; present only in old documents. */
  max_replacements_per_node?: number;
}
