import type { GetCampaignResult } from "../../../discovery/get-campaign.ts";
import type { CampaignStanding } from "../../../leaderboards/campaign-standings.ts";
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
<p><a href="/campaigns/${encodeURIComponent(campaign.slug)}/leaderboard" data-testid="campaign-leaderboard-link">Campaign leaderboard</a></p>
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

/**
 * A Campaign's leaderboard (`GET /campaigns/{slug}/leaderboard`): participants ranked across its
 * scored open Problems by campaignStandings (more Problems entered first, then the lower mean of
 * per-Problem ranks), each Problem's rank in its own column; the reader's row is marked.
 */
export function renderCampaignLeaderboardPage(
  campaign: { slug: string; title: string },
  problems: readonly string[],
  standings: readonly CampaignStanding[],
  you: string | null,
  visitor: SiteVisitor,
): Html {
  const path = `/campaigns/${encodeURIComponent(campaign.slug)}`;
  const rows = standings.map(
    (
      s,
    ) => html`<tr data-participant="${s.participant.handle}"${s.participant.user_id === you ? html` class="you" data-testid="your-row"` : html``}>
<td data-label="Rank">${String(s.rank)}</td>
<td data-label="Participant">${s.participant.handle}${s.participant.user_id === you ? html` <span class="tag">you</span>` : html``}</td>
<td data-label="Problems">${String(s.problems)} of ${String(problems.length)}</td>
<td data-label="Mean rank">${s.mean_rank.toFixed(2)}</td>
${problems.map((slug) => html`<td data-label="${slug}">${s.ranks[slug] === undefined ? "-" : String(s.ranks[slug])}</td>`)}
</tr>`,
  );
  const body = html`<p class="muted breadcrumbs"><a href="/">Explore</a> / <a href="${path}">${campaign.slug}</a> / leaderboard</p>
<h1>Campaign leaderboard: ${campaign.title}</h1>
<p>Across the campaign's scored open problems: a participant on more problems ranks higher; among those on as many, the lower mean of their per-problem ranks (1 is first) ranks higher. Ranks, not scores, are combined, since each problem's score has its own unit and direction. Problems whose scores are withheld from you count for nobody.</p>
${
  problems.length === 0
    ? html`<p class="muted" data-testid="no-scored-problems">No open problem of this campaign is scored.</p>`
    : rows.length === 0
      ? html`<p class="muted" data-testid="no-entries">No verified score yet.</p>`
      : html`<table data-testid="campaign-leaderboard">
<thead><tr><th scope="col">Rank</th><th scope="col">Participant</th><th scope="col">Problems</th><th scope="col">Mean rank</th>${problems.map((slug) => html`<th scope="col"><a href="/problems/${encodeURIComponent(slug)}/leaderboard">${slug}</a></th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table>`
}`;
  return renderSitePage(`Leaderboard: ${campaign.title}`, visitor, "explore", body);
}
