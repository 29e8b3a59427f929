import type { GetCampaignResult } from "../../../discovery/get-campaign.ts";
import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/**
 * A Campaign (`GET /campaigns/{slug}`): its description (the author's Markdown, sanitized) and
 * its open Problems in priority order, as get_campaign pages them.
 */
export function renderCampaignPage(
  result: GetCampaignResult,
  nextHref: string | null,
  visitor: SiteVisitor,
): Html {
  const { campaign } = result;
  const rows = result.open_problems.map(
    (p) => html`<tr>
<td><a href="/problems/${encodeURIComponent(p.slug)}">${p.title}</a><br><span class="muted">${p.summary}</span></td>
<td><span class="tag">${p.structure}</span></td>
<td>${p.priority_weight.toFixed(2)}</td>
</tr>`,
  );
  const body = html`<p class="muted"><a href="/">Explore</a> / campaigns</p>
<h1>${campaign.title}</h1>
<p>${campaign.summary}</p>
<p class="muted"><span class="tag">${campaign.status}</span> <span class="tag">${campaign.visibility}</span> updated ${campaign.updated_at}</p>
<div class="statement">${renderMarkdown(campaign.description_md)}</div>
<h2>Open problems, highest priority first</h2>
${
  rows.length === 0
    ? html`<p class="muted">No open problem.</p>`
    : html`<table data-testid="campaign-problems">
<thead><tr><th scope="col">Problem</th><th scope="col">Structure</th><th scope="col">Priority</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${nextHref ? html`<nav class="pager" aria-label="Pages"><a href="${nextHref}" rel="next">Next page</a></nav>` : html``}`;
  return renderSitePage(campaign.title, visitor, "explore", body);
}
