import type {
  AssignmentStatus,
  NodeStatus,
  NodeType,
  ProcessEndReason,
  ProcessStatus,
  ReduceOutcome,
  ReviewerKind,
  ReviewProtocolDocument,
  SkillRequirement,
  SubjectKind,
} from "@svc/schemas";
import type { AssistanceDeclaration, Citation } from "../core/services/review-response.ts";
import type { Reduction } from "./reduction.ts";

/**
 * Row types of migration 006 (review_processes, review_nodes, review_assignments).
 *
 * Glossary:
 * - process: one execution of a protocol snapshot over one subject.
 * - node row: one protocol node's progress in a process (pending, open, completed, skipped).
 * - assignment: one seat taken by one reviewer (a human's claim, or an agent the service issued).
 * - hold: how long a human's claim keeps its seat (`hold_until`); past it the claim has lapsed,
 *   whether or not a timer recorded it yet.
 * - deadline: `opened_at + assignment_timeout_hours` of a review node; a seat still open then
 *   ends the process `reviewers_unavailable`.
 */

/** A `review_processes` row. */
export interface ReviewProcessRow {
  id: string;
  review_protocol_id: string;
  protocol_hash: string;
  protocol_snapshot: ReviewProtocolDocument;
  subject_kind: SubjectKind;
  subject_id: string;
  subject_user_id: string;
  subject_organization_id: string | null;
  problem_id: string | null;
  problem_revision_id: string | null;
  campaign_id: string | null;
  verification_run_id: string | null;
  stage_key: string | null;
  status: ProcessStatus;
  outcome: ReduceOutcome | null;
  end_reason: ProcessEndReason | null;
  created_at: Date;
  finished_at: Date | null;
}

/** A `review_nodes` row. */
export interface ReviewNodeRow {
  review_process_id: string;
  node_id: string;
  type: NodeType;
  status: NodeStatus;
  /** Review nodes: reviewers.count; null on reduce nodes. */
  seats: number | null;
  opened_at: Date | null;
  deadline_at: Date | null;
  completed_at: Date | null;
  outcome: ReduceOutcome | null;
  reduction: Reduction | null;
  skip_reason: string | null;
}

/** The effective configuration a hosted agent assignment records. */
export interface AssignmentAgent {
  provider: string;
  model: string;
  config: Record<string, unknown>;
}

/** A `review_assignments` row. */
export interface ReviewAssignmentRow {
  id: string;
  review_process_id: string;
  node_id: string;
  reviewer_kind: ReviewerKind;
  reviewer_user_id: string | null;
  agent: AssignmentAgent | null;
  skills_supplied: Array<{ skill_version_id: string; requirement: SkillRequirement }>;
  status: AssignmentStatus;
  claimed_at: Date;
  /** Humans only: when the claim lapses unless submitted or renewed. Null for agents. */
  hold_until: Date | null;
  ended_at: Date | null;
  response: Record<string, unknown> | null;
  rationale_md: string | null;
  citations: Citation[] | null;
  confidence: number | null;
  assistance: AssistanceDeclaration | null;
  agent_attempts: number;
  agent_last_error: string | null;
}

/** Column lists of the three tables, for `select ${sql.unsafe(...)}`. */
export const PROCESS_COLUMNS =
  "id, review_protocol_id, protocol_hash, protocol_snapshot, subject_kind, subject_id, subject_user_id, subject_organization_id, problem_id, problem_revision_id, campaign_id, verification_run_id, stage_key, status, outcome, end_reason, created_at, finished_at";
export const NODE_COLUMNS =
  "review_process_id, node_id, type, status, seats, opened_at, deadline_at, completed_at, outcome, reduction, skip_reason";
export const ASSIGNMENT_COLUMNS =
  "id, review_process_id, node_id, reviewer_kind, reviewer_user_id, agent, skills_supplied, status, claimed_at, hold_until, ended_at, response, rationale_md, citations, confidence, assistance, agent_attempts, agent_last_error";
