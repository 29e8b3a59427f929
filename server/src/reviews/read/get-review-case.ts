import type { ProtocolNode, ReviewerKind, ReviewProtocolDocument } from "@svc/schemas";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import type { Viewer } from "../../visibility/viewer.ts";
import { advanceReviewProcess } from "../advance-review-process.ts";
import { holdPassed, reviewNodeState } from "../node-state.ts";
import { buildReviewBundle, type ReviewBundle } from "../review-bundle.ts";
import { reviewerStanding } from "../review-eligibility.ts";
import type { ReviewAssignmentRow } from "../review-records.ts";
import { timePassedUnrecorded } from "./get-review-process.ts";
import {
  type LoadedReviewProcess,
  loadReadableReviewProcess,
  loadReviewProcess,
} from "./load-review-process.ts";
import { assignmentUrl, caseUrl } from "./review-links.ts";

/** One review node's case as a reader sees it (spec 4.1 get_review_case). */
export interface ReviewCaseView {
  review_process_id: string;
  node_id: string;
  node_title: string | null;
  problem_id: string | null;
  reviewer_kind: ReviewerKind;
  node_status: string;
  seats: number;
  open_seats: number;
  deadline_at: string | null;
  deadline_passed: boolean;
  /** The caller's live or submitted assignment on this node, when any. */
  assignment_id: string | null;
  hold_until: string | null;
  /** What a reviewer of this node gets: blinded by the node's visibility (spec 5.8). */
  bundle: ReviewBundle;
}

/** get_review_case's result: the case and its links. */
export interface ReviewCaseResult {
  review_case: ReviewCaseView;
  case_url: string;
  /** The caller's assignment on this node; null when they hold none. */
  assignment_url: string | null;
}

/**
 * Reads a review node's case without claiming (spec 4.1, 5.8): no seat is taken, no hold renewed,
 * nothing drafted. Nobody who may not read the work under review reads its case (not_found, as
 * for an unknown process). Among those who may: the holder of an assignment on the node, the subject's
 * managers, and anyone the node would let claim (eligible, not in conflict) while it is open;
 * everyone else is refused with the engine's reason (`not_eligible`, `conflict_of_interest`).
 * The bundle is the engine's, blinded by the node's `visibility`; nothing of another reviewer's
 * response is in it.
 */
export async function getReviewCase(
  services: Services,
  viewer: Viewer,
  input: { review_process_id: string; node_id: string },
  baseUrl: string,
): Promise<ReviewCaseResult> {
  const notFound = () =>
    new ServiceError(
      "not_found",
      `no review node "${input.node_id}" in a review process "${input.review_process_id}": name a review node of an existing process`,
      { ...input },
    );
  let loaded = await loadReadableReviewProcess(services, viewer, input.review_process_id);
  if (!loaded) throw notFound();
  const now = services.clock();
  if (timePassedUnrecorded(loaded, now)) {
    await advanceReviewProcess(services, input.review_process_id);
    loaded = (await loadReviewProcess(services.sql, input.review_process_id))!;
  }
  const node = protocolNode(loaded, input.node_id);
  const row = loaded.nodes.find((n) => n.node_id === input.node_id);
  if (!node || !row || node.type !== "review" || !node.reviewers) throw notFound();
  const assignments = loaded.assignments.filter((a) => a.node_id === input.node_id);
  const mine = currentAssignmentOf(assignments, viewer.userId, now);
  const manager = viewer.isAdministrator || loaded.managerUserId === viewer.userId;
  const held = assignments.some((a) => a.reviewer_user_id === viewer.userId);
  const state = reviewNodeState(row, assignments, now);
  if (row.status === "pending" || row.status === "skipped") {
    throw new ServiceError(
      "node_not_open",
      `review node "${input.node_id}" is ${row.status}: its case exists once the node opens`,
      { ...input, node_status: row.status },
    );
  }
  if (!manager && !held) {
    const standing = await reviewerStanding(services.sql, viewer.userId, loaded.process, node);
    if (!standing.ok) throw new ServiceError(standing.code, standing.reason, { ...input });
    if (row.status !== "open" || loaded.process.status !== "open") {
      throw new ServiceError(
        "node_not_open",
        `review node "${input.node_id}" is no longer open: only its reviewers and the subject's managers read its case now`,
        { ...input, node_status: row.status },
      );
    }
  }
  const bundle = await buildReviewBundle(services, loaded.process, input.node_id);
  return {
    review_case: {
      review_process_id: loaded.process.id,
      node_id: input.node_id,
      node_title: node.title,
      problem_id: loaded.process.problem_id,
      reviewer_kind: node.reviewers.kind,
      node_status: row.status,
      seats: row.seats ?? node.reviewers.count,
      open_seats: state.open_seats,
      deadline_at: row.deadline_at?.toISOString() ?? null,
      deadline_passed: state.deadline_passed,
      assignment_id: mine?.id ?? null,
      hold_until: mine?.status === "claimed" ? (mine.hold_until?.toISOString() ?? null) : null,
      bundle,
    },
    case_url: caseUrl(baseUrl, loaded.process.id, input.node_id),
    assignment_url: mine ? assignmentUrl(baseUrl, mine.id) : null,
  };
}

/** The protocol node of a loaded process by id. */
export function protocolNode(loaded: LoadedReviewProcess, nodeId: string): ProtocolNode | undefined {
  return (loaded.process.protocol_snapshot as ReviewProtocolDocument).nodes.find((n) => n.id === nodeId);
}

/** The user's live claim (hold not passed) or submitted assignment on a node, if any. */
export function currentAssignmentOf(
  assignments: ReviewAssignmentRow[],
  userId: string,
  now: Date,
): ReviewAssignmentRow | undefined {
  return assignments.find(
    (a) =>
      a.reviewer_user_id === userId &&
      (a.status === "submitted" || (a.status === "claimed" && !holdPassed(a, now))),
  );
}
