import { ServiceError } from "../core/errors/service-error.ts";
import type { ReviewResponseInput } from "../core/services/review-response.ts";
import type { Services } from "../core/services/services.ts";
import { advanceReviewProcess } from "./advance-review-process.ts";
import { checkReviewResponse } from "./check-review-response.ts";
import { endClaimsWithoutAccessAround } from "./end-claims-without-access.ts";
import { lockOwnAssignment } from "./lock-own-assignment.ts";
import type { ReviewAssignmentRow, ReviewNodeRow } from "./review-records.ts";
import { storeJudgment } from "./store-judgment.ts";

/**
 * submit_review_response: records the caller's judgment on their live claim once it passes the
 * node's rubric, then advances the process (the node may complete, a reducer run, the process
 * finish). A response failing the rubric is refused with every problem named
 * (`response_rejected`), and the claim stays open for a corrected resubmit. Refused past the
 * node's deadline: the seat counts as unfilled then.
 */
export async function submitReviewResponse(
  services: Services,
  userId: string,
  input: { assignment_id: string } & ReviewResponseInput,
): Promise<ReviewAssignmentRow> {
  const { assignment_id: assignmentId, ...response } = input;
  await endClaimsWithoutAccessAround(services.sql, assignmentId, services.clock());
  const stored = await services.sql.begin(async (tx) => {
    const now = services.clock();
    const { process, node } = await lockOwnAssignment(tx, userId, assignmentId, now);
    const [row] = await tx<Pick<ReviewNodeRow, "deadline_at">[]>`
      select deadline_at from review_nodes where review_process_id = ${process.id} and node_id = ${node.id}`;
    if (row?.deadline_at && row.deadline_at.getTime() <= now.getTime()) {
      throw new ServiceError(
        "process_finished",
        `node "${node.id}" passed its deadline at ${row.deadline_at.toISOString()} with a seat open, so the process ends reviewers_unavailable`,
        { review_process_id: process.id, node_id: node.id, deadline_at: row.deadline_at },
      );
    }
    const problems = checkReviewResponse(node, response);
    if (problems.length > 0) {
      throw new ServiceError(
        "response_rejected",
        `the response fails the rubric of node "${node.id}"; fix every problem and submit again (your claim stays open): ${problems
          .map((problem) => `${problem.path || "(input)"}: ${problem.message}`)
          .join("; ")}`,
        { assignment_id: assignmentId, problems },
      );
    }
    return (await storeJudgment(tx, assignmentId, response, now))!;
  });
  await advanceReviewProcess(services, stored.review_process_id);
  return stored;
}
