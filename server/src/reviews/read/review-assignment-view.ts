import type { AssignmentStatus, ReviewerKind } from "@svc/schemas";
import { holdPassed } from "../node-state.ts";
import type { ReviewAssignmentRow } from "../review-records.ts";
import { assignmentUrl, caseUrl } from "./review-links.ts";

/** What a completed review returned (spec 2.1 rubric): shown only once its node completed. */
export interface ReviewJudgmentView {
  response: unknown;
  rationale_md: string | null;
  citations: unknown;
  confidence: number | null;
  assistance: unknown;
}

/**
 * A ReviewAssignment as a reader sees it. `status` is the state at the read's clock (a claim
 * whose hold has passed reads `lapsed` even before the lapse timer records it).
 */
export interface ReviewAssignmentView {
  id: string;
  review_process_id: string;
  node_id: string;
  reviewer_kind: ReviewerKind;
  /** Null when the reader may not know who reviewed (anyone but a manager or the reviewer). */
  reviewer_user_id: string | null;
  /** Hosted agents: the effective {provider, model, config}. */
  agent: unknown;
  skills_supplied: unknown;
  status: AssignmentStatus;
  claimed_at: string;
  hold_until: string | null;
  ended_at: string | null;
  /** Null while none was submitted, and while withheld. */
  judgment: ReviewJudgmentView | null;
  /** True when a judgment exists but its node has not completed (independence). */
  judgment_withheld: boolean;
  case_url: string;
  /** The assignment's page; only for its holder and managers, null otherwise. */
  assignment_url: string | null;
}

/** How one reader sees one assignment. */
export interface AssignmentLens {
  now: Date;
  baseUrl: string;
  /** Whether the assignment's node has completed: judgments are withheld until then. */
  nodeCompleted: boolean;
  /** Whether the reader may see who the reviewer is. */
  showReviewer: boolean;
}

/**
 * The reader's view of an assignment. The holder always sees their own judgment and identity;
 * everyone else sees a judgment only once the node completed, so no reviewer reads another's
 * response before submitting their own.
 */
export function toAssignmentView(
  row: ReviewAssignmentRow,
  readerId: string,
  lens: AssignmentLens,
): ReviewAssignmentView {
  const own = row.reviewer_user_id !== null && row.reviewer_user_id === readerId;
  const lapsed = row.status === "claimed" && holdPassed(row, lens.now);
  const submitted = row.status === "submitted";
  const visible = submitted && (own || lens.nodeCompleted);
  return {
    id: row.id,
    review_process_id: row.review_process_id,
    node_id: row.node_id,
    reviewer_kind: row.reviewer_kind,
    reviewer_user_id: own || lens.showReviewer ? row.reviewer_user_id : null,
    agent: row.agent,
    skills_supplied: row.skills_supplied,
    status: lapsed ? "lapsed" : row.status,
    claimed_at: row.claimed_at.toISOString(),
    hold_until: row.hold_until?.toISOString() ?? null,
    ended_at: row.ended_at?.toISOString() ?? (lapsed ? row.hold_until!.toISOString() : null),
    judgment: visible
      ? {
          response: row.response,
          rationale_md: row.rationale_md,
          citations: row.citations,
          confidence: row.confidence,
          assistance: row.assistance,
        }
      : null,
    judgment_withheld: submitted && !visible,
    case_url: caseUrl(lens.baseUrl, row.review_process_id, row.node_id),
    assignment_url: own || lens.showReviewer ? assignmentUrl(lens.baseUrl, row.id) : null,
  };
}
