import type { Leaderboard, LeaderboardEntry } from "../../../leaderboards/leaderboard.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/**
 * A leaderboard (`GET /problems/{slug}/leaderboard`): each participant's best verified score,
 * ranked, with the baseline drawn as a row where it would rank; on sealed work that withholds
 * scores from this reader, a notice saying why and until when, and no entry.
 */
export function renderLeaderboardPage(
  board: Leaderboard,
  title: string,
  visitor: SiteVisitor,
  /** Whether this reader may open an entry's run: only those are links (the rest would be a 404). */
  canOpenRun: (entry: LeaderboardEntry) => boolean,
  /** The reader's user id, whose row is marked; null for a visitor. */
  you: string | null = null,
  /** Each participant's Submissions to the revision (entries), by user id. */
  entries: ReadonlyMap<string, number> = new Map(),
  /** Each entry's run's newest attestation in the transparency log, by run id (docs/attestations.md). */
  attested: ReadonlyMap<string, number> = new Map(),
): Html {
  const path = `/problems/${encodeURIComponent(board.problem_slug)}`;
  const better = board.metric.direction === "lower_is_better" ? "lower is better" : "higher is better";
  const beats = (score: number, baseline: number) =>
    board.metric.direction === "lower_is_better" ? score <= baseline : score >= baseline;
  const rows: Html[] = [];
  let baselineShown = board.baseline === null;
  const baselineRow = () =>
    html`<tr class="baseline" data-testid="baseline"><td></td><td><em>Baseline</em></td><td>${String(board.baseline)}</td><td></td><td colspan="3" class="muted">the benchmark's reference value</td></tr>`;
  for (const entry of board.entries) {
    if (!baselineShown && !beats(entry.score, board.baseline!)) {
      rows.push(baselineRow());
      baselineShown = true;
    }
    rows.push(
      html`<tr data-participant="${entry.participant.handle}"${entry.participant.user_id === you ? html` class="you" data-testid="your-row"` : html``}><td data-label="Rank">${String(entry.rank)}</td><td data-label="Participant">${entry.participant.handle}${entry.participant.user_id === you ? html` <span class="tag">you</span>` : html``}</td><td data-label="Score">${String(entry.score)}</td><td data-label="Entries">${String(entries.get(entry.participant.user_id) ?? "-")}</td><td data-label="Run">${canOpenRun(entry) ? html`<a href="/verifications/${encodeURIComponent(entry.verification_run_id)}">${entry.verification_run_id}</a>` : html`<span class="muted">${entry.verification_run_id}</span>`}</td><td data-label="Finished">${entry.finished_at}</td><td data-label="Attested">${attestedCell(entry, attested.get(entry.verification_run_id), canOpenRun(entry))}</td></tr>`,
    );
  }
  if (!baselineShown) rows.push(baselineRow());
  const withheld =
    board.withheld &&
    html`<p role="status" data-testid="withheld">Scores are withheld: ${
      board.withheld.because === "score_release"
        ? "this sealed evaluation releases scores at the end"
        : "entries are independent and stay private until selection freezes"
    }${board.withheld.until ? html` (until ${board.withheld.until})` : html``}.</p>`;
  const table =
    board.withheld === null &&
    (board.entries.length === 0
      ? html`<p class="muted" data-testid="no-entries">No verified score yet.</p>${board.baseline === null ? html`` : html`<p>Baseline: ${String(board.baseline)}</p>`}`
      : html`<table data-testid="leaderboard">
<caption class="muted">${board.metric.name}${board.metric.unit ? html` (${board.metric.unit})` : html``}, ${better}</caption>
<thead><tr><th scope="col">Rank</th><th scope="col">Participant</th><th scope="col">Score</th><th scope="col">Entries</th><th scope="col">Run</th><th scope="col">Finished</th><th scope="col">Attested</th></tr></thead>
<tbody>${rows}</tbody>
</table>`);
  const body = html`<p class="muted"><a href="/">Explore</a> / <a href="${path}">${board.problem_slug}</a></p>
<h1>Leaderboard: ${title}</h1>
<p>Revision ${String(board.revision_number)}. Each participant's best verified, unrevoked score; ${board.metric.name}, ${better}. Entries count each participant's submissions to this revision.</p>
${withheld}
${table}`;
  return renderSitePage(`Leaderboard: ${title}`, visitor, "explore", body);
}

/**
 * An entry's place in the transparency log: a link to the run page's "Check it yourself" for
 * those who may read the run, else the log index alone (the log is public; the envelope is not).
 */
function attestedCell(entry: LeaderboardEntry, logIndex: number | undefined, canOpen: boolean): Html {
  if (logIndex === undefined) return html`<span class="muted">pending</span>`;
  return canOpen
    ? html`<a href="/verifications/${encodeURIComponent(entry.verification_run_id)}#attestation" data-testid="attested">log #${String(logIndex)}</a>`
    : html`<span title="entry ${String(logIndex)} of the transparency log" data-testid="attested">log #${String(logIndex)}</span>`;
}
