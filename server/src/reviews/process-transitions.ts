import type { ProcessEndReason, ProtocolNode, ReduceOutcome, ReviewProtocolDocument } from "@svc/schemas";
import { holdPassed, reviewNodeState } from "./node-state.ts";
import type { ReduceInput, Reduction } from "./reduction.ts";
import type { ReviewAssignmentRow, ReviewNodeRow } from "./review-records.ts";

/**
 * The process state machine, as a pure function of the snapshot, the stored rows and `now`.
 *
 * A node waits (`pending`) until every dependency (reduce `inputs`, `visibility.prior_nodes`,
 * `when.node`) is `completed` or `skipped`. Then:
 * - it is skipped when its `when` node was skipped or emitted another outcome;
 * - a k_of_n or threshold node whose review node was skipped is skipped (it has nothing to
 *   read), and so is a coalesce node whose inputs were all skipped; a coalesce node with some
 *   inputs skipped reads those as null (passed over);
 * - a review node opens its seats, with the deadline `now + assignment_timeout_hours`; a review
 *   node whose `prior_nodes` were skipped still opens (it shows them as skipped);
 * - a reduce node completes at once with the reducer's outcome and steps.
 * An open review node completes when `count` assignments are submitted. The process finishes
 * `completed` with the output node's outcome once the output node completes (`unresolved` if it
 * was skipped), else `reviewers_unavailable` (no outcome) once an open review node's deadline has
 * passed with fewer submissions than seats. A finishing process skips its pending nodes and
 * lapses the claims still held. Holds past `hold_until` lapse at `hold_until`.
 */
export type Transition =
  | { kind: "lapse"; assignment_id: string; at: Date; reason: "hold_passed" | "process_finished" }
  | { kind: "open"; node_id: string; opened_at: Date; deadline_at: Date }
  | { kind: "complete_review"; node_id: string; completed_at: Date }
  | { kind: "reduce"; node_id: string; reduction: Reduction; completed_at: Date }
  | { kind: "skip"; node_id: string; skip_reason: string }
  | { kind: "finish"; end_reason: ProcessEndReason; outcome: ReduceOutcome | null; finished_at: Date };

/** The reducer the engine applies (review-pure's `reduceNode`), passed in to keep this module pure. */
export type Reducer = (node: ProtocolNode, input: ReduceInput) => Reduction;

const HOUR_MS = 60 * 60 * 1000;

/** Every node a node waits for: reduce inputs, prior nodes it shows, and its `when` node. */
export function nodeDependencies(node: ProtocolNode): string[] {
  const deps = new Set<string>([...(node.inputs ?? []), ...(node.visibility?.prior_nodes ?? [])]);
  if (node.when) deps.add(node.when.node);
  return [...deps];
}

/**
 * What must change in an open process at `now`, in the order to apply it. Applying the result
 * and planning again at the same `now` gives nothing: the plan runs to a fixed point.
 */
export function planTransitions(
  document: ReviewProtocolDocument,
  nodeRows: ReviewNodeRow[],
  assignments: ReviewAssignmentRow[],
  now: Date,
  reduce: Reducer,
): Transition[] {
  const transitions: Transition[] = [];
  const nodes = new Map(nodeRows.map((row) => [row.node_id, { ...row }]));
  const live = assignments.map((a) => ({ ...a }));
  for (const assignment of live) {
    if (assignment.status === "claimed" && holdPassed(assignment, now)) {
      transitions.push({
        kind: "lapse",
        assignment_id: assignment.id,
        at: assignment.hold_until!,
        reason: "hold_passed",
      });
      assignment.status = "lapsed";
    }
  }
  const settled = (id: string) => {
    const status = nodes.get(id)?.status;
    return status === "completed" || status === "skipped";
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (const node of document.nodes) {
      const row = nodes.get(node.id);
      if (!row) continue;
      if (row.status === "pending" && nodeDependencies(node).every(settled)) {
        const skip = skipReason(node, nodes);
        if (skip !== null) {
          transitions.push({ kind: "skip", node_id: node.id, skip_reason: skip });
          row.status = "skipped";
        } else if (node.type === "review") {
          const deadline = new Date(now.getTime() + document.policy.assignment_timeout_hours * HOUR_MS);
          transitions.push({ kind: "open", node_id: node.id, opened_at: now, deadline_at: deadline });
          Object.assign(row, { status: "open", opened_at: now, deadline_at: deadline });
        } else {
          const reduction = reduce(node, reduceInput(node, nodes, live));
          transitions.push({ kind: "reduce", node_id: node.id, reduction, completed_at: now });
          Object.assign(row, { status: "completed", outcome: reduction.outcome, completed_at: now });
        }
        changed = true;
      } else if (row.status === "open" && row.type === "review") {
        if (reviewNodeState(row, live, now).submitted >= (row.seats ?? 0)) {
          transitions.push({ kind: "complete_review", node_id: node.id, completed_at: now });
          Object.assign(row, { status: "completed", completed_at: now });
          changed = true;
        }
      }
    }
  }
  const end = processEnd(document, nodes, live, now);
  if (end === null) return transitions;
  for (const node of document.nodes) {
    if (nodes.get(node.id)?.status === "pending") {
      transitions.push({
        kind: "skip",
        node_id: node.id,
        skip_reason: `the process ended (${end.end_reason}) before this node's dependencies completed`,
      });
    }
  }
  for (const assignment of live) {
    if (assignment.status === "claimed") {
      transitions.push({ kind: "lapse", assignment_id: assignment.id, at: now, reason: "process_finished" });
    }
  }
  transitions.push({ kind: "finish", ...end, finished_at: now });
  return transitions;
}

function skipReason(node: ProtocolNode, nodes: Map<string, ReviewNodeRow>): string | null {
  if (node.when) {
    const condition = nodes.get(node.when.node);
    if (condition?.status === "skipped") return `its condition node "${node.when.node}" was skipped`;
    if (condition?.outcome !== node.when.outcome) {
      return `node "${node.when.node}" emitted ${condition?.outcome ?? "nothing"}; this node runs only on ${node.when.outcome}`;
    }
  }
  if (node.type === "reduce") {
    const inputs = node.inputs ?? [];
    const skipped = inputs.filter((id) => nodes.get(id)?.status === "skipped");
    if (node.op !== "coalesce" && skipped.length > 0) return `its input node "${skipped[0]}" was skipped`;
    if (node.op === "coalesce" && skipped.length === inputs.length)
      return "every one of its input nodes was skipped";
  }
  return null;
}

function reduceInput(
  node: ProtocolNode,
  nodes: Map<string, ReviewNodeRow>,
  assignments: ReviewAssignmentRow[],
): ReduceInput {
  const inputs = node.inputs ?? [];
  if (node.op === "coalesce") {
    return {
      kind: "outcomes",
      outcomes: inputs.map((id) => ({ node_id: id, outcome: nodes.get(id)?.outcome ?? null })),
    };
  }
  const source = inputs[0];
  const judgments = assignments
    .filter((a) => a.node_id === source && a.status === "submitted" && a.response !== null)
    .sort((a, b) => time(a.ended_at) - time(b.ended_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((a) => ({ assignment_id: a.id, response: a.response! }));
  return { kind: "judgments", judgments };
}

function processEnd(
  document: ReviewProtocolDocument,
  nodes: Map<string, ReviewNodeRow>,
  assignments: ReviewAssignmentRow[],
  now: Date,
): { end_reason: ProcessEndReason; outcome: ReduceOutcome | null } | null {
  const output = nodes.get(document.output);
  if (output?.status === "completed")
    return { end_reason: "completed", outcome: output.outcome ?? "unresolved" };
  if (output?.status === "skipped") return { end_reason: "completed", outcome: "unresolved" };
  for (const row of nodes.values()) {
    if (row.status !== "open" || row.type !== "review") continue;
    const state = reviewNodeState(row, assignments, now);
    if (state.deadline_passed && state.submitted < (row.seats ?? 0)) {
      return { end_reason: "reviewers_unavailable", outcome: null };
    }
  }
  return null;
}

function time(date: Date | null): number {
  return date === null ? Number.POSITIVE_INFINITY : date.getTime();
}
