import { Structure } from "@svc/schemas";
import type { Campaign } from "../../../campaigns/campaign.ts";
import type { SearchProblemsResult } from "../../../problems/search-problems.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/** The Explore form's values as the visitor sent them (the same filters as search_problems). */
export interface ExploreFilters {
  q: string;
  structure: string;
  status: string;
  scope: "" | "standalone" | "campaigns";
  order: string;
}

export interface ExplorePage {
  filters: ExploreFilters;
  campaigns: Campaign[];
  /** A page of problems, or null when the filters were refused (then `error` says why). */
  result: SearchProblemsResult | null;
  error: string | null;
  /** The next page's address (the same filters and the cursor), or null on the last page. */
  nextHref: string | null;
}

const STRUCTURES = Object.values(Structure);
const ORDERS = [
  ["priority", "Priority (best match first with words)"],
  ["least_attempted", "Least attempted"],
  ["random", "Random"],
] as const;

/**
 * Explore (`GET /`): listed Campaigns, then listed Problems (and the visitor's own) searched with
 * search_problems' filters, order and cursor pages. A plain GET form: it works without script.
 */
export function renderExplorePage(page: ExplorePage, visitor: SiteVisitor): Html {
  const { filters } = page;
  const option = (value: string, label: string, selected: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : html``}>${label}</option>`;
  const campaigns =
    page.campaigns.length === 0
      ? html`<p class="muted">No campaign is listed yet.</p>`
      : html`<ul>${page.campaigns.map(
          (c) =>
            html`<li><a href="/campaigns/${encodeURIComponent(c.slug)}">${c.title}</a>: ${c.summary}</li>`,
        )}</ul>`;
  const rows = (page.result?.problems ?? []).map(
    (p) => html`<tr>
<td><a href="/problems/${encodeURIComponent(p.slug)}">${p.title}</a><br><span class="muted">${p.summary}</span></td>
<td><span class="tag">${p.structure}</span></td>
<td>${p.campaign_slug ? html`<a href="/campaigns/${encodeURIComponent(p.campaign_slug)}">${p.campaign_slug}</a>` : html`<span class="muted">standalone</span>`}</td>
<td>${p.priority_weight.toFixed(2)}</td>
<td>${String(p.active_attempts)}</td>
</tr>`,
  );
  const results = page.error
    ? html`<p role="alert" data-testid="explore-error">${page.error}</p>`
    : rows.length === 0
      ? html`<p class="muted" data-testid="no-problems">No problem matches.</p>`
      : html`<table data-testid="problems">
<caption class="muted">Problems, ${page.filters.order.replace("_", " ")} order</caption>
<thead><tr><th scope="col">Problem</th><th scope="col">Structure</th><th scope="col">Campaign</th><th scope="col">Priority</th><th scope="col">Active attempts</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
  const pager = html`<nav class="pager" aria-label="Pages">${page.nextHref ? html`<a href="${page.nextHref}" rel="next">Next page</a>` : html``}${
    page.nextHref || new URLSearchParams(visitor.path.split("?")[1] ?? "").has("cursor")
      ? html`<a href="/">First page</a>`
      : html``
  }</nav>`;
  const body = html`<h1>Explore</h1>
<h2 id="campaigns">Campaigns</h2>
${campaigns}
<h2 id="problems">Problems</h2>
<form class="search" method="get" action="/" role="search" aria-labelledby="problems">
<label>Words <input type="search" name="q" value="${filters.q}" maxlength="1000"></label>
<label>Structure <select name="structure">${option("", "Any", filters.structure)}${STRUCTURES.map((s) => option(s, s, filters.structure))}</select></label>
<label>Status <select name="status">${option("open", "Open", filters.status)}${option("archived", "Archived", filters.status)}</select></label>
<label>Where <select name="scope">${option("", "Everywhere", filters.scope)}${option("standalone", "Standalone only", filters.scope)}${option("campaigns", "In campaigns only", filters.scope)}</select></label>
<label>Order <select name="order">${ORDERS.map(([value, label]) => option(value, label, filters.order))}</select></label>
<button type="submit">Search</button>
</form>
${results}
${pager}`;
  return renderSitePage("Explore", visitor, "explore", body);
}
