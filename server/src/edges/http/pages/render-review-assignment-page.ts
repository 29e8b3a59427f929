import type { ReviewAssignmentResult } from "../../../reviews/read/get-review-assignment.ts";
import { type Html, html } from "../html/html.ts";
import { factTable, jsonBlock, link, reviewPage, textBlock } from "./render-review-html.ts";

/**
 * The web view of an assignment (`GET /review-assignments/{ras}`): its state and hold, the
 * judgment when the reader may see it (rationale as preformatted text), a link to the case, and
 * while the claim is live the bundle. It shows what get_review_assignment returns.
 */
export function renderReviewAssignmentPage(result: ReviewAssignmentResult): Html {
  const a = result.assignment;
  const judgment = a.judgment
    ? html`<h2>Judgment</h2>
${jsonBlock(a.judgment.response, "response")}
<h3>Rationale</h3>
${textBlock(a.judgment.rationale_md ?? "", "rationale")}
${factTable([["Confidence", a.judgment.confidence]])}
<h3>Citations</h3>
${jsonBlock(a.judgment.citations, "citations")}
${a.judgment.assistance ? html`<h3>Assistance</h3>\n${jsonBlock(a.judgment.assistance)}` : null}`
    : a.judgment_withheld && html`<p class="note">The judgment is withheld until the node completes.</p>`;
  const body = html`<h1>Review assignment <code>${a.id}</code></h1>
${factTable([
  ["Status", a.status],
  ["Process", a.review_process_id],
  ["Node", a.node_id],
  ["Reviewer", a.reviewer_user_id ?? (a.reviewer_kind === "agent" ? "hosted agent" : "-")],
  ["Claimed", a.claimed_at],
  ["Hold until", a.hold_until],
  ["Ended", a.ended_at],
])}
<p>Case: ${link(result.case_url, `${a.review_process_id} / ${a.node_id}`)}</p>
${judgment}
${result.bundle && html`<h2>Bundle</h2>\n${jsonBlock(result.bundle, "bundle")}`}`;
  return reviewPage(`Review assignment ${a.id}: ${a.status}`, body);
}
