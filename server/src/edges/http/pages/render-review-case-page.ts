import type { ReviewCaseResult } from "../../../reviews/read/get-review-case.ts";
import { type Html, html } from "../html/html.ts";
import type { SiteVisitor } from "../html/render-site-page.ts";
import { factTable, jsonBlock, link, markdownBlock, reviewPage, textBlock } from "./render-review-html.ts";

/**
 * The web view of a review case (`GET /reviews/{rpr}/nodes/{node_id}`): the node's state, the
 * rubric's instructions, each material (inlined text shown, larger files as their preview) and
 * the whole bundle as JSON. It shows exactly what get_review_case returns, blinded the same way.
 * With `claim`, a reader without an assignment on an open node with a free seat gets a Claim
 * button (the claim itself decides whether they may).
 */
export function renderReviewCasePage(
  result: ReviewCaseResult,
  visitor: SiteVisitor,
  claim: { action: string; csrf: Html } | null = null,
): Html {
  const c = result.review_case;
  const bundle = c.bundle as unknown as Record<string, unknown>;
  const rubric = bundle.rubric as { instructions_md?: unknown } | undefined;
  const instructions =
    typeof rubric?.instructions_md === "string" &&
    html`<h2>Instructions</h2>\n${markdownBlock(rubric.instructions_md, "instructions")}`;
  const materials = Array.isArray(bundle.materials)
    ? bundle.materials.map((item, i) => html`${i > 0 && "\n"}${renderMaterial(item)}`)
    : [];
  const assignment = result.assignment_url
    ? html`<p>Your assignment: ${link(result.assignment_url, c.assignment_id ?? "assignment")}</p>`
    : claim && c.node_status === "open" && c.open_seats > 0 && !c.deadline_passed
      ? html`<form method="post" action="${claim.action}" class="inline">${claim.csrf}<button type="submit" data-testid="claim">Claim a seat</button></form>
<p class="muted">Claiming holds the seat for you until the hold passes; agents use <code>claim_review</code>.</p>`
      : html`<p class="note">You hold no assignment on this node.</p>`;
  const body = html`<h1>Review case <code>${c.review_process_id}</code> / <code>${c.node_id}</code></h1>
${c.node_title && html`<p>${c.node_title}</p>`}
<p><a href="/review-processes/${c.review_process_id}" data-testid="process-link">The review process</a></p>
${factTable([
  ["Node status", c.node_status],
  ["Reviewers", c.reviewer_kind],
  ["Seats", c.seats],
  ["Open seats", c.open_seats],
  ["Deadline", c.deadline_at],
  ["Deadline passed", c.deadline_passed],
  ["Problem", c.problem_id],
  ["Your hold until", c.hold_until],
])}
${assignment}
${instructions}
<h2>Materials</h2>
${materials.length === 0 ? html`<p>No materials.</p>` : materials}
<details><summary>The whole bundle, as JSON</summary>
${jsonBlock(c.bundle, "bundle")}
</details>`;
  return reviewPage(`Review case ${c.review_process_id} ${c.node_id}`, visitor, body);
}

/** One material of a bundle: its facts, and its text inline (or its preview) when it has one. */
export function renderMaterial(item: unknown): Html {
  const m = (item ?? {}) as Record<string, unknown>;
  const str = (value: unknown) => (value === null || value === undefined ? "-" : String(value));
  return html`<section class="material">
<h3>${str(m.kind)}: ${str(m.filename ?? m.key)}</h3>
${factTable([
  ["Key", str(m.key)],
  ["Media type", str(m.media_type)],
  ["Size (bytes)", str(m.size_bytes)],
  ["Content hash", str(m.content_hash)],
  ["Resource", str(m.resource_uri)],
])}
${typeof m.text === "string" && textBlock(m.text)}${
  typeof m.preview === "string" &&
  html`${textBlock(m.preview)}<p class="note">Preview only: ${str(m.omitted_reason)}</p>`
}
</section>`;
}
