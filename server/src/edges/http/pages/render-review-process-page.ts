import type { ReviewNodeView, ReviewProcessView } from "../../../reviews/read/review-process-view.ts";
import { type Html, html } from "../html/html.ts";
import type { SiteVisitor } from "../html/render-site-page.ts";
import { factTable, jsonBlock, reviewPage } from "./render-review-html.ts";
import { localPath } from "./render-review-seat-pages.ts";

/**
 * `GET /review-processes/{id}`: what get_review_process returns, for the subject's managers, its
 * submitter and its reviewers: status and outcome, the blinded subject, each node with its seats,
 * deadline and (reduce nodes, once completed) every reducer step, the assignments (judgments
 * withheld until their node completes), and the protocol snapshot with its hash.
 */
export function renderReviewProcessPage(view: ReviewProcessView, visitor: SiteVisitor): Html {
  const s = view.subject;
  const body = html`<h1>Review process <code>${view.id}</code></h1>
${factTable([
  ["Status", view.status],
  ["Outcome", view.outcome],
  ["End reason", view.end_reason],
  ["You read it as", view.reader_role],
  ["Subject", `${s.kind} ${s.id}`],
  ["Problem", s.problem_id],
  ["Verification run", s.verification_run_id],
  [
    "Submitter",
    s.submitter_handle ?? (s.hidden.includes("submitter_identity") ? "hidden" : s.submitter_user_id),
  ],
  ["Created", view.created_at],
  ["Finished", view.finished_at],
  ["Protocol", view.review_protocol_id],
  ["Protocol hash", view.protocol_hash],
])}
${s.verification_run_id ? html`<p><a href="/verifications/${s.verification_run_id}">The run under review</a></p>` : ""}
<h2>Nodes</h2>
<table data-testid="nodes">
<caption class="muted">Nodes in protocol order, as of ${view.as_of}</caption>
<thead><tr><th scope="col">Node</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Seats (open / claimed / submitted)</th><th scope="col">Deadline</th><th scope="col">Outcome</th></tr></thead>
<tbody>${view.nodes.map(renderNode)}</tbody>
</table>
${view.nodes.map(renderNodeDetail)}
<h2>Protocol snapshot</h2>
${jsonBlock(view.protocol_snapshot, "protocol")}`;
  return reviewPage(`Review process ${view.id}`, visitor, body);
}

function renderNode(node: ReviewNodeView): Html {
  const seats =
    node.seats === null
      ? "-"
      : `${node.seats} (${node.open_seats ?? 0} / ${node.claimed ?? 0} / ${node.submitted ?? 0})`;
  return html`<tr data-node="${node.id}">
<td>${node.case_url ? html`<a href="${localPath(node.case_url)}">${node.title ?? node.id}</a>` : (node.title ?? node.id)}<br><code class="muted">${node.id}</code></td>
<td>${node.type}${node.reviewer_kind ? html` (${node.reviewer_kind})` : ""}</td>
<td data-testid="node-status">${node.status}${node.skip_reason ? html`: ${node.skip_reason}` : ""}</td>
<td>${seats}</td>
<td>${node.deadline_at ?? "-"}${node.deadline_passed ? " (passed)" : ""}</td>
<td data-testid="node-outcome">${node.outcome ?? "-"}</td>
</tr>`;
}

function renderNodeDetail(node: ReviewNodeView): Html {
  const steps = node.reduction?.steps.map((step) => html`<li>${step.description}</li>`) ?? [];
  const assignments = node.assignments.map(
    (a) =>
      html`<li>${a.assignment_url ? html`<a href="${localPath(a.assignment_url)}">${a.id}</a>` : a.id}: ${a.status}${a.judgment_withheld ? " (judgment withheld until the node completes)" : ""}</li>`,
  );
  if (steps.length === 0 && assignments.length === 0) return html``;
  return html`<section data-testid="node-detail" aria-labelledby="node-${node.id}">
<h3 id="node-${node.id}">${node.title ?? node.id}</h3>
${assignments.length > 0 ? html`<p>Assignments:</p><ul>${assignments}</ul>` : ""}
${steps.length > 0 ? html`<p>Reducer steps (${node.reduction!.op}):</p><ol data-testid="reduction">${steps}</ol>` : ""}
</section>`;
}
