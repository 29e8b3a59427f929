import type { Services } from "../core/services/services.ts";
import { endClaimsWithoutAccessAround } from "./end-claims-without-access.ts";
import { lockOwnAssignment } from "./lock-own-assignment.ts";
import { ASSIGNMENT_COLUMNS, type ReviewAssignmentRow } from "./review-records.ts";

/** decline_review_assignment: ends the caller's live claim; its seat reopens at once. */
export async function declineReviewAssignment(
  services: Services,
  userId: string,
  assignmentId: string,
): Promise<ReviewAssignmentRow> {
  await endClaimsWithoutAccessAround(services.sql, assignmentId, services.clock());
  return await services.sql.begin(async (tx) => {
    const now = services.clock();
    await lockOwnAssignment(tx, userId, assignmentId, now);
    const [declined] = await tx<ReviewAssignmentRow[]>`
      update review_assignments set status = 'declined', ended_at = ${now}
      where id = ${assignmentId} and status = 'claimed'
      returning ${tx.unsafe(ASSIGNMENT_COLUMNS)}`;
    return declined!;
  });
}
