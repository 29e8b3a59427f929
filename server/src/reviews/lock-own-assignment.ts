import type { ProtocolNode } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { userCanReadReviewSubject } from "../visibility/review-subject-access.ts";
import { lockProcessNode } from "./claim-review.ts";
import { holdPassed } from "./node-state.ts";
import { readAssignmentRow } from "./read-process-rows.ts";
import type { ReviewAssignmentRow, ReviewProcessRow } from "./review-records.ts";

/**
 * The caller's live claim, with its process locked: not_found for an unknown id, someone else's
 * assignment (ids of other reviewers' seats are not confirmed) or one on work the caller may no
 * longer read (its claim ended already: callers run endClaimsWithoutAccessAround first), process_finished,
 * assignment_ended once submitted or declined, hold_lapsed once its hold passed.
 */
export async function lockOwnAssignment(
  tx: Sql,
  userId: string,
  assignmentId: string,
  now: Date,
): Promise<{ assignment: ReviewAssignmentRow; process: ReviewProcessRow; node: ProtocolNode }> {
  const found = await readAssignmentRow(tx, assignmentId);
  if (
    !found ||
    found.reviewer_user_id !== userId ||
    !(await userCanReadReviewSubject(tx, userId, found.review_process_id))
  ) {
    throw new ServiceError("not_found", `you hold no review assignment "${assignmentId}"`, {
      field: "assignment_id",
      assignment_id: assignmentId,
    });
  }
  const { process, node } = await lockProcessNode(tx, found.review_process_id, found.node_id, userId);
  const assignment = (await readAssignmentRow(tx, assignmentId))!;
  if (assignment.status === "lapsed" || (assignment.status === "claimed" && holdPassed(assignment, now))) {
    throw new ServiceError(
      "hold_lapsed",
      `your claim ${assignmentId} lapsed at ${assignment.hold_until?.toISOString()}: claim_review again if a seat is free`,
      { assignment_id: assignmentId, hold_until: assignment.hold_until },
    );
  }
  if (assignment.status !== "claimed") {
    throw new ServiceError("assignment_ended", `assignment ${assignmentId} is already ${assignment.status}`, {
      assignment_id: assignmentId,
      status: assignment.status,
    });
  }
  return { assignment, process, node };
}
