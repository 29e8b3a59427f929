import type { ReduceOp, ReduceOutcome } from "@svc/schemas";

/** One completed review a k_of_n or threshold reducer reads: the judgment of one assignment. */
export interface ReviewJudgment {
  assignment_id: string;
  /** The domain-specific `response`, already validated against the node's response_schema. */
  response: Record<string, unknown>;
}

/**
 * One step a reducer took, in order, so a reader can redo the reduction by hand
 * (`get_review_process` shows them): what was read and what it counted or computed.
 */
export interface ReductionStep {
  /** What the step did, in a sentence: "response of ras_... has verdict = \"accept\": matches accept". */
  description: string;
  /** The assignment whose response was read, or the reduce node whose outcome was read. */
  source: string | null;
  /** The value read (the field's value, or the input node's outcome). */
  value: unknown;
}

/** A reduce node's result: its outcome and how it was reached (stored in review_nodes.reduction). */
export interface Reduction {
  op: ReduceOp;
  /** The node's `inputs`, in order. */
  inputs: string[];
  steps: ReductionStep[];
  outcome: ReduceOutcome;
}

/**
 * What a reduce node reads. k_of_n and threshold read the judgments of their one review node
 * (in submission order); coalesce reads its input reduce nodes' outcomes in priority order, null
 * for an input that was skipped (its `when` did not hold) and so emitted nothing.
 */
export type ReduceInput =
  | { kind: "judgments"; judgments: ReviewJudgment[] }
  | { kind: "outcomes"; outcomes: Array<{ node_id: string; outcome: ReduceOutcome | null }> };
