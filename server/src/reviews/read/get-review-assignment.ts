import { IdPrefix, idPattern } from "@svc/schemas";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import type { Viewer } from "../../visibility/viewer.ts";
import { buildReviewBundle, type ReviewBundle } from "../review-bundle.ts";
import { readReviewProcess } from "./get-review-process.ts";
import { type ReviewAssignmentView, toAssignmentView } from "./review-assignment-view.ts";

const ASSIGNMENT_ID = idPattern(IdPrefix.reviewAssignment);

/** get_review_assignment's result. */
export interface ReviewAssignmentResult {
  assignment: ReviewAssignmentView;
  /** While the claim is live: the bundle again, so a reviewer can pick the work back up. */
  bundle: ReviewBundle | null;
  case_url: string;
  assignment_url: string;
}

/**
 * One assignment, for its holder and the subject's managers (administrators included); not_found
 * for anyone else. Its state is read at the service clock; while it is claimed the (blinded)
 * bundle comes with it.
 */
export async function getReviewAssignment(
  services: Services,
  viewer: Viewer,
  assignmentId: string,
  baseUrl: string,
): Promise<ReviewAssignmentResult> {
  const notFound = () =>
    new ServiceError("not_found", `no review assignment you can read has the id "${assignmentId}"`, {
      assignment_id: assignmentId,
    });
  const [ref] = ASSIGNMENT_ID.test(assignmentId)
    ? await services.sql<{ review_process_id: string }[]>`
        select review_process_id from review_assignments where id = ${assignmentId}`
    : [];
  if (!ref) throw notFound();
  const { loaded, reader, now } = await readReviewProcess(services, viewer, ref.review_process_id).catch(
    (error: unknown) => {
      throw error instanceof ServiceError && error.code === "not_found" ? notFound() : error;
    },
  );
  const row = loaded.assignments.find((a) => a.id === assignmentId)!;
  if (reader.role !== "manager" && row.reviewer_user_id !== viewer.userId) throw notFound();
  const node = loaded.nodes.find((n) => n.node_id === row.node_id);
  const assignment = toAssignmentView(row, viewer.userId, {
    now,
    baseUrl,
    nodeCompleted: node?.status === "completed",
    showReviewer: reader.role === "manager",
  });
  const bundle =
    assignment.status === "claimed" ? await buildReviewBundle(services, loaded.process, row.node_id) : null;
  return { assignment, bundle, case_url: assignment.case_url, assignment_url: assignment.assignment_url! };
}
