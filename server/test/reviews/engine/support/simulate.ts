import type { ReviewProtocolDocument } from "@svc/schemas";
import { planTransitions, type Transition } from "../../../../src/reviews/process-transitions.ts";
import { reduceNode } from "../../../../src/reviews/reduce/reduce-node.ts";
import type { ReviewAssignmentRow, ReviewNodeRow } from "../../../../src/reviews/review-records.ts";

/** An in-memory process: the rows advanceReviewProcess would store, for the pure engine's tests. */
export interface SimProcess {
  document: ReviewProtocolDocument;
  nodes: ReviewNodeRow[];
  assignments: ReviewAssignmentRow[];
  finished: { end_reason: string; outcome: string | null } | null;
}

let ids = 0;

/** A fresh process with every node pending. */
export function simProcess(document: ReviewProtocolDocument): SimProcess {
  return {
    document,
    finished: null,
    assignments: [],
    nodes: document.nodes.map((node) => ({
      review_process_id: "rpr_sim0000000",
      node_id: node.id,
      type: node.type,
      status: "pending",
      seats: node.type === "review" ? (node.reviewers?.count ?? 1) : null,
      opened_at: null,
      deadline_at: null,
      completed_at: null,
      outcome: null,
      reduction: null,
      skip_reason: null,
    })),
  };
}

/** Plans at `now` and applies the plan to the rows, as advanceReviewProcess does; returns it. */
export function advance(sim: SimProcess, now: Date): Transition[] {
  if (sim.finished) return [];
  const transitions = planTransitions(sim.document, sim.nodes, sim.assignments, now, reduceNode);
  for (const t of transitions) {
    const node = "node_id" in t ? sim.nodes.find((n) => n.node_id === t.node_id)! : null;
    switch (t.kind) {
      case "lapse":
        Object.assign(sim.assignments.find((a) => a.id === t.assignment_id)!, {
          status: "lapsed",
          ended_at: t.at,
        });
        break;
      case "open":
        Object.assign(node!, { status: "open", opened_at: t.opened_at, deadline_at: t.deadline_at });
        break;
      case "complete_review":
        Object.assign(node!, { status: "completed", completed_at: t.completed_at });
        break;
      case "reduce":
        Object.assign(node!, {
          status: "completed",
          completed_at: t.completed_at,
          outcome: t.reduction.outcome,
          reduction: t.reduction,
        });
        break;
      case "skip":
        Object.assign(node!, { status: "skipped", skip_reason: t.skip_reason });
        break;
      case "finish":
        sim.finished = { end_reason: t.end_reason, outcome: t.outcome };
        break;
    }
  }
  return transitions;
}

/** A submitted judgment on a node, as if a reviewer claimed and submitted at `at`. */
export function submit(sim: SimProcess, nodeId: string, response: Record<string, unknown>, at: Date): void {
  ids += 1;
  sim.assignments.push(
    assignment(nodeId, `ras_sim${String(ids).padStart(10, "0")}`, at, {
      status: "submitted",
      ended_at: at,
      response,
    }),
  );
}

/** A live human claim on a node, held until `holdUntil`. */
export function claim(sim: SimProcess, nodeId: string, at: Date, holdUntil: Date): string {
  ids += 1;
  const id = `ras_sim${String(ids).padStart(10, "0")}`;
  sim.assignments.push(assignment(nodeId, id, at, { hold_until: holdUntil }));
  return id;
}

function assignment(
  nodeId: string,
  id: string,
  at: Date,
  fields: Partial<ReviewAssignmentRow>,
): ReviewAssignmentRow {
  return {
    id,
    review_process_id: "rpr_sim0000000",
    node_id: nodeId,
    reviewer_kind: "human",
    reviewer_user_id: `usr_${id.slice(4)}`,
    agent: null,
    skills_supplied: [],
    status: "claimed",
    claimed_at: at,
    hold_until: null,
    ended_at: null,
    response: null,
    rationale_md: null,
    citations: null,
    confidence: null,
    assistance: null,
    agent_attempts: 0,
    agent_last_error: null,
    ...fields,
  };
}

/** `base` plus `hours`. */
export function hoursAfter(base: Date, hours: number): Date {
  return new Date(base.getTime() + hours * 3_600_000);
}
