import type { ReviewAssignmentRow, ReviewNodeRow } from "./review-records.ts";

/** What a review node's seats look like at one instant. */
export interface ReviewNodeState {
  /** Seats nobody holds: count minus submitted minus live claims (never below zero). */
  open_seats: number;
  /** Live claims: `claimed` with the hold still running (agents: until they end). */
  claimed: number;
  submitted: number;
  /** `claimed` rows whose hold has passed: lapsed already, whether or not recorded. */
  lapsed_ids: string[];
  /** The node's deadline is at or before `now`. */
  deadline_passed: boolean;
}

/**
 * A review node's seats as of `now`, from stored rows only. Every read goes through this, so a
 * lapse or deadline timer that runs late never shows a wrong state: a hold that has passed is
 * lapsed here before any job records it. Assignments of other nodes are ignored.
 */
export function reviewNodeState(
  node: ReviewNodeRow,
  assignments: ReviewAssignmentRow[],
  now: Date,
): ReviewNodeState {
  let claimed = 0;
  let submitted = 0;
  const lapsed_ids: string[] = [];
  for (const assignment of assignments) {
    if (assignment.review_process_id !== node.review_process_id || assignment.node_id !== node.node_id)
      continue;
    if (assignment.status === "submitted") submitted += 1;
    else if (assignment.status === "claimed") {
      if (holdPassed(assignment, now)) lapsed_ids.push(assignment.id);
      else claimed += 1;
    }
  }
  const seats = node.seats ?? 0;
  return {
    open_seats: Math.max(0, seats - submitted - claimed),
    claimed,
    submitted,
    lapsed_ids,
    deadline_passed: node.deadline_at !== null && node.deadline_at.getTime() <= now.getTime(),
  };
}

/** Whether a `claimed` assignment's hold has passed at `now` (agent assignments have none). */
export function holdPassed(assignment: Pick<ReviewAssignmentRow, "hold_until">, now: Date): boolean {
  return assignment.hold_until !== null && assignment.hold_until.getTime() <= now.getTime();
}
