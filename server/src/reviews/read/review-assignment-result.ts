import type { Services } from "../../core/services/services.ts";
import type { Viewer } from "../../visibility/viewer.ts";
import { buildReviewBundle, type ReviewBundle } from "../review-bundle.ts";
import type { ReviewAssignmentRow } from "../review-records.ts";
import { loadReviewProcess } from "./load-review-process.ts";
import { type ReviewAssignmentView, toAssignmentView } from "./review-assignment-view.ts";

/**
 * An assignment the caller just wrote (claimed, declined or submitted) as its holder sees it,
 * with its links; the node's completion is read after the write, so a submission that completed
 * the node shows the node completed.
 */
export async function ownAssignmentView(
  services: Services,
  viewer: Viewer,
  row: ReviewAssignmentRow,
  baseUrl: string,
): Promise<ReviewAssignmentView> {
  const [node] = await services.sql<{ status: string }[]>`
    select status from review_nodes where review_process_id = ${row.review_process_id} and node_id = ${row.node_id}`;
  return toAssignmentView(row, viewer.userId, {
    now: services.clock(),
    baseUrl,
    nodeCompleted: node?.status === "completed",
    showReviewer: false,
  });
}

/** claim_review's result (decisions.md): the assignment, the blinded bundle, the hold and both links. */
export async function claimResult(
  services: Services,
  viewer: Viewer,
  row: ReviewAssignmentRow,
  baseUrl: string,
): Promise<{
  assignment: ReviewAssignmentView;
  bundle: ReviewBundle;
  hold_until: string | null;
  case_url: string;
  assignment_url: string;
}> {
  const assignment = await ownAssignmentView(services, viewer, row, baseUrl);
  const loaded = await loadReviewProcess(services.sql, row.review_process_id);
  const bundle = await buildReviewBundle(services, loaded!.process, row.node_id);
  return {
    assignment,
    bundle,
    hold_until: assignment.hold_until,
    case_url: assignment.case_url,
    assignment_url: assignment.assignment_url!,
  };
}
