import type { HiddenItem, ProtocolNode, ReduceOutcome, ReviewProtocolDocument, When } from "@svc/schemas";

/** Builders of protocol documents as the schema leaves them (every node field present). */

const VERDICT_SCHEMA = {
  type: "object",
  properties: { verdict: { enum: ["accept", "reject"] }, score: { type: "number" } },
  required: ["verdict"],
};

const blank = {
  title: null,
  when: null,
  reviewers: null,
  visibility: null,
  conflicts: null,
  skills: null,
  rubric: null,
  inputs: null,
  op: null,
  config: null,
} as const;

export interface ReviewNodeOptions {
  count?: number;
  when?: When | null;
  prior_nodes?: string[];
  hidden?: HiddenItem[];
  stage_evidence?: boolean;
  conflicts?: ProtocolNode["conflicts"];
  eligibility?: NonNullable<ProtocolNode["reviewers"]>["eligibility"];
  title?: string | null;
}

/** A human review node answering `{verdict, score?}`, rationale required. */
export function humanNode(id: string, options: ReviewNodeOptions = {}): ProtocolNode {
  return {
    ...blank,
    id,
    type: "review",
    title: options.title ?? null,
    when: options.when ?? null,
    reviewers: {
      kind: "human",
      count: options.count ?? 2,
      independent: true,
      eligibility: options.eligibility ?? { rule: "any_participant", organization_id: null, user_ids: null },
      allowed: null,
      assistance: null,
    },
    visibility: {
      prior_nodes: options.prior_nodes ?? [],
      stage_evidence: options.stage_evidence ?? false,
      hidden: options.hidden ?? [],
    },
    conflicts: options.conflicts ?? null,
    rubric: {
      instructions_md: "Accept the work when it holds.",
      response_schema: VERDICT_SCHEMA,
      rationale: "required",
      citations: { min_items: 0 },
      confidence: "optional",
    },
  };
}

/** An agent review node over the `anthropic` provider. */
export function agentNode(id: string, options: ReviewNodeOptions & { models?: string[] } = {}): ProtocolNode {
  const human = humanNode(id, options);
  return {
    ...human,
    conflicts: null,
    reviewers: {
      kind: "agent",
      count: options.count ?? 1,
      independent: true,
      eligibility: null,
      allowed: (options.models ?? ["claude-test"]).map((model) => ({
        provider: "anthropic",
        model,
        config: {},
      })),
      assistance: null,
    },
  };
}

/** k_of_n over a review node's `verdict`. */
export function kOfN(
  id: string,
  input: string,
  acceptK: number,
  rejectK: number,
  when: When | null = null,
): ProtocolNode {
  return {
    ...blank,
    id,
    type: "reduce",
    when,
    inputs: [input],
    op: "k_of_n",
    config: {
      field: "verdict",
      accept: { predicate: { op: "eq", value: "accept" }, k: acceptK },
      reject: { predicate: { op: "eq", value: "reject" }, k: rejectK },
    },
  };
}

/** threshold over a review node's `score`. */
export function threshold(
  id: string,
  input: string,
  aggregate: "mean" | "median" | "min" | "max",
  acceptGte: number,
  rejectLt: number,
): ProtocolNode {
  return {
    ...blank,
    id,
    type: "reduce",
    inputs: [input],
    op: "threshold",
    config: { field: "score", aggregate, accept_gte: acceptGte, reject_lt: rejectLt },
  };
}

/** coalesce of reduce nodes in priority order. */
export function coalesce(id: string, inputs: string[]): ProtocolNode {
  return { ...blank, id, type: "reduce", inputs, op: "coalesce", config: {} };
}

/** A protocol document over `nodes`, output `output`. */
export function protocol(
  nodes: ProtocolNode[],
  output: string,
  policy: Partial<ReviewProtocolDocument["policy"]> = {},
): ReviewProtocolDocument {
  return {
    version: "svc.review/v0.1",
    purpose: "acceptance",
    title: "Engine test protocol",
    subject_kind: "submission",
    nodes,
    output,
    policy: { assignment_timeout_hours: 72, claim_hold_minutes: 120, ...policy },
  };
}

/** A `when` clause. */
export function when(node: string, outcome: ReduceOutcome): When {
  return { node, outcome };
}
