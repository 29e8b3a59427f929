import type {
  HiddenItem,
  NodeStatus,
  NodeType,
  ProcessStatus,
  ProtocolNode,
  ReviewerKind,
  ReviewProtocolDocument,
} from "@svc/schemas";
import { reviewNodeState } from "../node-state.ts";
import type { Reduction } from "../reduction.ts";
import type { ReviewNodeRow } from "../review-records.ts";
import type { LoadedReviewProcess } from "./load-review-process.ts";
import type { ProcessReader } from "./process-reader.ts";
import { type ReviewAssignmentView, toAssignmentView } from "./review-assignment-view.ts";
import { caseUrl } from "./review-links.ts";

/** The subject of a process, blinded for the reader: hidden fields are null and listed in `hidden`. */
export interface ReviewSubjectView {
  kind: string;
  id: string;
  problem_id: string | null;
  problem_revision_id: string | null;
  campaign_id: string | null;
  verification_run_id: string | null;
  stage_key: string | null;
  submitter_user_id: string | null;
  submitter_handle: string | null;
  submitter_organization_id: string | null;
  /** What is blinded for this reader (visibility.hidden of the protocol's review nodes). */
  hidden: HiddenItem[];
}

/** One node at the read's clock. Review nodes carry seats; reduce nodes their result. */
export interface ReviewNodeView {
  id: string;
  type: NodeType;
  title: string | null;
  when: unknown;
  status: NodeStatus;
  skip_reason: string | null;
  opened_at: string | null;
  completed_at: string | null;
  /** Review nodes (null on reduce nodes). */
  reviewer_kind: ReviewerKind | null;
  seats: number | null;
  open_seats: number | null;
  claimed: number | null;
  submitted: number | null;
  deadline_at: string | null;
  deadline_passed: boolean | null;
  case_url: string | null;
  /** Reduce nodes: the outcome and every reducer step, once completed (null otherwise or withheld). */
  outcome: string | null;
  reduction: Reduction | null;
  assignments: ReviewAssignmentView[];
}

/** The ReviewProcess record `get_review_process` and `svc://review-processes/{id}` return. */
export interface ReviewProcessView {
  id: string;
  review_protocol_id: string;
  protocol_hash: string;
  protocol_snapshot: ReviewProtocolDocument;
  subject: ReviewSubjectView;
  status: ProcessStatus;
  outcome: string | null;
  end_reason: string | null;
  created_at: string;
  finished_at: string | null;
  /** The clock the time-dependent fields were computed at. */
  as_of: string;
  /** How the caller reads it: manager, submitter or reviewer (docs/reviews.md). */
  reader_role: ProcessReader["role"];
  nodes: ReviewNodeView[];
}

/** Every item the protocol's review nodes hide from reviewers: a reviewer's view of the process hides them all. */
export function hiddenForReviewers(document: ReviewProtocolDocument): HiddenItem[] {
  const hidden = new Set<HiddenItem>();
  for (const node of document.nodes) for (const item of node.visibility?.hidden ?? []) hidden.add(item);
  return [...hidden].sort();
}

/** The subject as a reader may see it, with `hidden` applied (nothing is hidden from managers or the submitter). */
export function subjectView(loaded: LoadedReviewProcess, hidden: HiddenItem[]): ReviewSubjectView {
  const p = loaded.process;
  const identity = !hidden.includes("submitter_identity");
  const organization = !hidden.includes("submitter_organization");
  return {
    kind: p.subject_kind,
    id: p.subject_id,
    problem_id: p.problem_id,
    problem_revision_id: p.problem_revision_id,
    campaign_id: p.campaign_id,
    verification_run_id: p.verification_run_id,
    stage_key: p.stage_key,
    submitter_user_id: identity ? p.subject_user_id : null,
    submitter_handle: identity ? loaded.submitterHandle : null,
    submitter_organization_id: organization ? p.subject_organization_id : null,
    hidden,
  };
}

/**
 * The reader's view of a process at `now` (pure). Node seat counts come from reviewNodeState, so
 * a hold that passed reads lapsed before any timer recorded it. Blinding and withholding:
 * judgments only once their node completed (a reviewer's own always); reviewer identities only
 * for managers (and each reviewer's own); for reviewers the subject is blinded by every review
 * node's `visibility.hidden`, judgments of nodes they did not submit on stay withheld, and
 * reduce results appear only once the process finished.
 */
export function toReviewProcessView(
  loaded: LoadedReviewProcess,
  reader: ProcessReader,
  now: Date,
  baseUrl: string,
): ReviewProcessView {
  const p = loaded.process;
  const document = p.protocol_snapshot as ReviewProtocolDocument;
  const isReviewer = reader.role === "reviewer";
  const submittedOn = new Set(
    loaded.assignments
      .filter((a) => a.reviewer_user_id === reader.userId && a.status === "submitted")
      .map((a) => a.node_id),
  );
  const protocolNodes = new Map(document.nodes.map((node) => [node.id, node]));
  const nodes = loaded.nodes.map((row) => {
    const assignments = loaded.assignments.filter((a) => a.node_id === row.node_id);
    const completed = row.status === "completed";
    const views = assignments
      .filter((a) => !isReviewer || a.reviewer_user_id === reader.userId || submittedOn.has(row.node_id))
      .map((a) =>
        toAssignmentView(a, reader.userId, {
          now,
          baseUrl,
          nodeCompleted: completed && (!isReviewer || submittedOn.has(row.node_id)),
          showReviewer: reader.role === "manager",
        }),
      );
    return nodeView(row, protocolNodes.get(row.node_id), assignments, views, {
      now,
      baseUrl,
      showResult: completed && (!isReviewer || p.status === "finished"),
    });
  });
  return {
    id: p.id,
    review_protocol_id: p.review_protocol_id,
    protocol_hash: p.protocol_hash,
    protocol_snapshot: document,
    subject: subjectView(loaded, isReviewer ? hiddenForReviewers(document) : []),
    status: p.status,
    outcome: p.outcome,
    end_reason: p.end_reason,
    created_at: p.created_at.toISOString(),
    finished_at: p.finished_at?.toISOString() ?? null,
    as_of: now.toISOString(),
    reader_role: reader.role,
    nodes,
  };
}

function nodeView(
  row: ReviewNodeRow,
  node: ProtocolNode | undefined,
  assignments: LoadedReviewProcess["assignments"],
  views: ReviewAssignmentView[],
  options: { now: Date; baseUrl: string; showResult: boolean },
): ReviewNodeView {
  const review = row.type === "review";
  const state = review ? reviewNodeState(row, assignments, options.now) : null;
  return {
    id: row.node_id,
    type: row.type,
    title: node?.title ?? null,
    when: node?.when ?? null,
    status: row.status,
    skip_reason: row.skip_reason,
    opened_at: row.opened_at?.toISOString() ?? null,
    completed_at: row.completed_at?.toISOString() ?? null,
    reviewer_kind: node?.reviewers?.kind ?? null,
    seats: row.seats,
    open_seats: state?.open_seats ?? null,
    claimed: state?.claimed ?? null,
    submitted: state?.submitted ?? null,
    deadline_at: row.deadline_at?.toISOString() ?? null,
    deadline_passed: state?.deadline_passed ?? null,
    case_url: review ? caseUrl(options.baseUrl, row.review_process_id, row.node_id) : null,
    outcome: options.showResult ? row.outcome : null,
    reduction: options.showResult ? (row.reduction as Reduction | null) : null,
    assignments: views,
  };
}
