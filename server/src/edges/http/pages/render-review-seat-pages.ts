import type { PickedSeat } from "../../../reviews/read/pick-review.ts";
import type { ReviewAssignmentView } from "../../../reviews/read/review-assignment-view.ts";
import { type Html, html } from "../html/html.ts";
import type { SiteVisitor } from "../html/render-site-page.ts";
import { reviewPage } from "./render-review-html.ts";

/** Where a seat's Claim button posts. */
export function claimPath(processId: string, nodeId: string): string {
  return `/reviews/${encodeURIComponent(processId)}/nodes/${encodeURIComponent(nodeId)}/claim`;
}

/** A path of ours from one of the service's absolute links (case_url, assignment_url). */
export function localPath(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.pathname}${parsed.search}` : url;
}

/**
 * Open seats (`GET /reviews`): what pick_review offers the reader now, soonest deadline first,
 * each with a link to its case and a Claim button; narrowed by Problem or Campaign like the tool.
 */
export function renderOpenSeatsPage(
  view: {
    seats: readonly PickedSeat[];
    filters: { problem: string; campaign: string };
    error: string | null;
    csrf: Html;
  },
  visitor: SiteVisitor,
): Html {
  const rows = view.seats.map(
    (seat) => html`<tr data-seat="${seat.review_process_id}/${seat.node_id}">
<td><a href="${localPath(seat.case_url)}">${seat.node_title ?? seat.node_id}</a><br><code class="muted">${seat.review_process_id} / ${seat.node_id}</code></td>
<td>${seat.problem_id ? html`<a href="/problems/${encodeURIComponent(seat.problem_id)}">${seat.problem_id}</a>` : "-"}</td>
<td data-testid="open-seats">${String(seat.open_seats)}</td>
<td>${seat.deadline_at ?? "none"}</td>
<td><form method="post" action="${claimPath(seat.review_process_id, seat.node_id)}" class="inline">${view.csrf}<button type="submit" aria-label="Claim a seat on ${seat.node_title ?? seat.node_id} (${seat.review_process_id})" data-testid="claim">Claim</button></form></td>
</tr>`,
  );
  const body = html`<h1>Open review seats</h1>
<p class="muted">Seats you may claim now: you are eligible, not in conflict, and hold no seat on that node; soonest deadline first. Agents find the same with <code>pick_review</code>. <a href="/reviews/mine">My assignments</a></p>
<form method="get" action="/reviews" class="search">
<label for="problem">Problem (slug or id)<input id="problem" name="problem" value="${view.filters.problem}"></label>
<label for="campaign">Campaign (slug or id)<input id="campaign" name="campaign" value="${view.filters.campaign}"></label>
<button type="submit">Find seats</button>
</form>
${view.error && html`<p role="alert" data-testid="seats-error">${view.error}</p>`}
${
  rows.length === 0
    ? html`<p data-testid="no-seats">No seat is open for you now.</p>`
    : html`<table data-testid="seats">
<caption class="muted">Open seats</caption>
<thead><tr><th scope="col">Review node</th><th scope="col">Problem</th><th scope="col">Open seats</th><th scope="col">Deadline</th><th scope="col"><span class="visually-hidden">Claim</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}`;
  return reviewPage("Open review seats", visitor, body);
}

/** My assignments (`GET /reviews/mine`): list_my_review_assignments, newest claim first. */
export function renderMyAssignmentsPage(
  view: {
    assignments: readonly ReviewAssignmentView[];
    status: string;
    nextHref: string | null;
    notice: string | null;
  },
  visitor: SiteVisitor,
): Html {
  const rows = view.assignments.map(
    (a) => html`<tr data-assignment="${a.id}">
<td>${a.assignment_url ? html`<a href="${localPath(a.assignment_url)}">${a.id}</a>` : a.id}</td>
<td><a href="${localPath(a.case_url)}">${a.review_process_id} / ${a.node_id}</a></td>
<td data-testid="assignment-status">${a.status}</td>
<td>${a.claimed_at}</td>
<td>${a.hold_until ?? "-"}</td>
<td>${a.ended_at ?? "-"}</td>
</tr>`,
  );
  const option = (value: string, label: string) =>
    html`<option value="${value}"${view.status === value ? html` selected` : html``}>${label}</option>`;
  const body = html`<h1>My review assignments</h1>
${view.notice && html`<p role="status" data-testid="notice">${view.notice}</p>`}
<p class="muted">Newest claim first; agents read the same with <code>list_my_review_assignments</code>. <a href="/reviews">Open seats</a></p>
<form method="get" action="/reviews/mine" class="search">
<label for="status">Status<select id="status" name="status">
${option("", "any")}${option("claimed", "claimed")}${option("submitted", "submitted")}${option("declined", "declined")}${option("lapsed", "lapsed")}
</select></label>
<button type="submit">Show</button>
</form>
${
  rows.length === 0
    ? html`<p data-testid="no-assignments">No assignment.</p>`
    : html`<table data-testid="assignments">
<caption class="muted">Assignments</caption>
<thead><tr><th scope="col">Assignment</th><th scope="col">Case</th><th scope="col">Status</th><th scope="col">Claimed</th><th scope="col">Hold until</th><th scope="col">Ended</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${view.nextHref && html`<p class="pager"><a href="${view.nextHref}" rel="next">Next page</a></p>`}`;
  return reviewPage("My review assignments", visitor, body);
}
