import type { ResponseProblem } from "../../../core/services/review-response.ts";
import type { ReviewAssignmentResult } from "../../../reviews/read/get-review-assignment.ts";
import { type Html, html } from "../html/html.ts";
import type { SiteVisitor } from "../html/render-site-page.ts";
import { renderMaterial } from "./render-review-case-page.ts";
import { factTable, jsonBlock, link, markdownBlock, reviewPage } from "./render-review-html.ts";
import { type FormRubric, type ResponseFormView, renderResponseForm } from "./review-response-form.ts";

/** What the holder of a live claim may do on the page: respond, or decline. */
export interface AssignmentActions {
  /** The response form (its values are what was entered, after a refusal). */
  form: ResponseFormView;
  /** Where the Decline button posts. */
  declineAction: string;
  /** The service clock, for the hold's remaining time. */
  now: Date;
  /** A refused response: the refusal's message and every problem it named; null otherwise. */
  refusal: { message: string; problems: readonly ResponseProblem[] } | null;
}

/**
 * The web view of an assignment (`GET /review-assignments/{ras}`): its state and hold, the
 * judgment when the reader may see it (rationale as preformatted text), a link to the case, and
 * while the claim is live the bundle. It shows what get_review_assignment returns. For the
 * holder of a live claim (`actions`), the hold's remaining time, the response form generated from
 * the rubric, any refusal with each problem, and a Decline button.
 */
export function renderReviewAssignmentPage(
  result: ReviewAssignmentResult,
  visitor: SiteVisitor,
  actions: AssignmentActions | null = null,
): Html {
  const a = result.assignment;
  const judgment = a.judgment
    ? html`<h2>Judgment</h2>
${jsonBlock(a.judgment.response, "response")}
<h3>Rationale</h3>
${markdownBlock(a.judgment.rationale_md ?? "", "rationale")}
${factTable([["Confidence", a.judgment.confidence]])}
<h3>Citations</h3>
${jsonBlock(a.judgment.citations, "citations")}
${a.judgment.assistance ? html`<h3>Assistance</h3>\n${jsonBlock(a.judgment.assistance)}` : null}`
    : a.judgment_withheld && html`<p class="note">The judgment is withheld until the node completes.</p>`;
  const rubric = ((result.bundle as unknown as { rubric?: FormRubric } | null)?.rubric ?? null) as
    | (FormRubric & { instructions_md?: unknown })
    | null;
  const respond =
    actions &&
    rubric &&
    html`<section aria-labelledby="respond">
<h2 id="respond">Your response</h2>
<p data-testid="hold">${holdLeft(a.hold_until, actions.now)}</p>
${
  actions.refusal &&
  html`<div role="alert" class="refusal" data-testid="refusal">
<p><strong>Not accepted:</strong> the response fails the rubric. Fix every problem below and submit again; your claim stays open.</p>
<ul>${actions.refusal.problems.map((p) => html`<li><code>${p.path || "(input)"}</code>: ${p.message}</li>`)}</ul>
</div>`
}
${typeof rubric.instructions_md === "string" && html`<h3>Instructions</h3>\n${markdownBlock(rubric.instructions_md, "instructions")}`}
${renderMaterials(result.bundle)}
${renderResponseForm(rubric, actions.form)}
<form method="post" action="${actions.declineAction}" class="inline">${actions.form.csrf}<button type="submit" class="secondary" data-testid="decline">Decline this seat</button></form>
<p class="muted">Declining gives the seat up for good; it reopens for others.</p>
<h3>Response schema</h3>
${jsonBlock(rubric.response_schema ?? null, "response-schema")}
</section>`;
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
<p>Case: ${link(result.case_url, `${a.review_process_id} / ${a.node_id}`)} · ${link(`/review-processes/${a.review_process_id}`, "the review process")}</p>
${respond}
${judgment}
${result.bundle && html`<details><summary>The whole bundle, as JSON</summary>\n${jsonBlock(result.bundle, "bundle")}</details>`}`;
  return reviewPage(`Review assignment ${a.id}: ${a.status}`, visitor, body);
}

/** The material under review, above the form: each text inline, each file with its facts. */
function renderMaterials(bundle: unknown): Html {
  const materials = (bundle as { materials?: unknown } | null)?.materials;
  if (!Array.isArray(materials) || materials.length === 0) return html``;
  return html`<h3 id="materials">Material under review</h3>
<div data-testid="materials">${materials.map(renderMaterial)}</div>`;
}

/** "Your hold lasts until T: N minutes left." */
function holdLeft(holdUntil: string | null, now: Date): string {
  if (holdUntil === null) return "Your claim has no hold limit.";
  const minutes = Math.max(0, Math.floor((Date.parse(holdUntil) - now.getTime()) / 60_000));
  const left = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  return `Your hold lasts until ${holdUntil}: ${left} left. Past it the claim lapses and the seat reopens; claiming again renews it.`;
}
