import type { Attempt } from "../../../attempts/attempt.ts";
import type { OwnStanding } from "../../../leaderboards/campaign-standings.ts";
import type { Submission } from "../../../submissions/submission.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/** What the dashboard shows: one page of the caller's Attempts, each with its Submissions. */
export interface DashboardView {
  attempts: ReadonlyArray<{ attempt: Attempt; submissions: readonly Submission[] }>;
  /** The next page's address, or null on the last page. */
  nextHref: string | null;
  /** True when this is not the first page. */
  paged: boolean;
  /** Your row on each leaderboard you are on (first page only). */
  best?: readonly OwnStanding[];
}

/**
 * The participant's dashboard (`GET /me`): their Attempts, newest first (what list_my_attempts
 * returns), and under each its Submissions with the latest run's status and result (what
 * list_submissions returns). A finished run without a result is withheld from its submitter by a
 * sealed evaluation, and says "withheld", as the run page does.
 */
export function renderDashboardPage(view: DashboardView, visitor: SiteVisitor): Html {
  const rows = view.attempts.map(({ attempt, submissions }) => renderAttempt(attempt, submissions));
  const body = html`<h1>My attempts</h1>
<p class="muted">Your attempts, newest first, with each submission's latest verification run. Agents read the same with <code>list_my_attempts</code> and <code>list_submissions</code>.</p>
${
  rows.length === 0
    ? html`<p data-testid="no-attempts">${view.paged ? "No more attempts." : html`You have no attempt yet. Find a problem on <a href="/">Explore</a> and submit from its page.`}</p>`
    : html`<table data-testid="attempts">
<caption class="muted">Attempts</caption>
<thead><tr><th scope="col">Problem</th><th scope="col">Revision</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Started</th><th scope="col">Submissions</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${view.nextHref && html`<p class="pager"><a href="${view.nextHref}" rel="next">Next page</a></p>`}
${view.best && view.best.length > 0 ? renderBest(view.best) : html``}`;
  return renderSitePage("My attempts", visitor, "me", body);
}

/** Your best score per Problem, with its rank on the current revision's leaderboard. */
function renderBest(best: readonly OwnStanding[]): Html {
  const rows = best.map((row) => {
    const board = `/problems/${encodeURIComponent(row.problem_slug)}/leaderboard`;
    return html`<tr data-best="${row.problem_slug}">
<td data-label="Problem"><a href="/problems/${encodeURIComponent(row.problem_slug)}">${row.problem_slug}</a></td>
<td data-label="Best score" data-testid="best-score">${row.entry ? `${row.entry.score}${row.metric.unit ? ` ${row.metric.unit}` : ""}` : "withheld"}</td>
<td data-label="Rank">${row.entry ? html`<a href="${board}">${String(row.entry.rank)} of ${String(row.entry.of)}</a>` : html`<a href="${board}">leaderboard</a>`}</td>
<td data-label="Metric">${row.metric.name}, ${row.metric.direction === "lower_is_better" ? "lower is better" : "higher is better"}</td>
</tr>`;
  });
  return html`<h2 id="best">Your best scores</h2>
<table data-testid="best-scores"><thead><tr><th scope="col">Problem</th><th scope="col">Best score</th><th scope="col">Rank</th><th scope="col">Metric</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function renderAttempt(attempt: Attempt, submissions: readonly Submission[]): Html {
  const problem = `/problems/${encodeURIComponent(attempt.problem_slug)}`;
  const list =
    submissions.length === 0
      ? html`<span class="muted">none</span>`
      : html`<ul>${submissions.map(renderSubmission)}</ul>`;
  return html`<tr data-attempt="${attempt.id}">
<td><a href="${problem}">${attempt.problem_slug}</a><br><code class="muted">${attempt.id}</code></td>
<td><a href="${problem}?revision=${String(attempt.revision_number)}">${String(attempt.revision_number)}</a></td>
<td data-testid="attempt-status">${attempt.status}</td>
<td>${attempt.outcome ?? "-"}</td>
<td>${when(attempt.started_at)}</td>
<td>${list}</td>
</tr>`;
}

function renderSubmission(submission: Submission): Html {
  const run = submission.latest_verification;
  const result = run
    ? html`<a href="/verifications/${encodeURIComponent(run.id)}">run ${run.status}</a>: <span data-testid="run-result">${run.result ?? (run.status === "finished" ? "withheld" : "pending")}</span>${run.score === null ? html`` : html`, score ${String(run.score)}`}`
    : html`<span class="muted">no run</span>`;
  return html`<li data-submission="${submission.id}"><code>${submission.id}</code>${submission.status === "withdrawn" ? html` (withdrawn)` : html``}: ${result}</li>`;
}

/** A time as people read it in a table: UTC to the minute. */
function when(at: string): string {
  return `${at.slice(0, 16).replace("T", " ")} UTC`;
}
