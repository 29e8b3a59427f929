import { AttemptOutcome } from "@svc/schemas";
import type { AttemptDetail } from "../../../solving/get-attempt.ts";
import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";
import { byteSize, renderYourSubmissions } from "./render-submit-form.ts";

/**
 * An Attempt (`GET /attempts/{id}`, get_attempt): its Problem and revision, status, outcome and
 * summary, its Artifacts and its Submissions with their latest runs; for its owner while it is
 * active, the form that ends it with an outcome and a summary note (end_attempt).
 */
export function renderAttemptPage(attempt: AttemptDetail, csrf: Html | null, visitor: SiteVisitor): Html {
  const problem = `/problems/${encodeURIComponent(attempt.problem_slug)}`;
  const end =
    csrf &&
    attempt.status === "active" &&
    html`<h2 id="end">End this attempt</h2>
<form method="post" action="/attempts/${encodeURIComponent(attempt.id)}/end" class="review" data-testid="end-form">
${csrf}
<label for="outcome">Outcome</label>
<select id="outcome" name="outcome" required>
${Object.values(AttemptOutcome).map((o) => html`<option value="${o}">${o.replace("_", " ")}</option>`)}
</select>
<label for="note_md">Summary: what you did, what worked, what is left (Markdown)</label>
<textarea id="note_md" name="note_md" rows="6" required maxlength="20000"></textarea>
<p><button type="submit" data-testid="end-attempt">End the attempt</button></p>
</form>
<p class="muted">An ended attempt takes no more uploads or submissions; start a new one from the problem page.</p>`;
  const artifacts =
    attempt.artifacts.length === 0
      ? html`<p class="muted">No files.</p>`
      : html`<table class="stack"><thead><tr><th scope="col">File</th><th scope="col">Media type</th><th scope="col">Size</th><th scope="col">Content hash</th></tr></thead>
<tbody>${attempt.artifacts.map(
          (a) =>
            html`<tr><td data-label="File">${a.download_url ? html`<a href="${a.download_url}">${a.filename}</a>` : a.filename}</td><td data-label="Media type">${a.media_type}</td><td data-label="Size">${byteSize(a.size_bytes)}</td><td data-label="Content hash"><code>${a.content_hash}</code></td></tr>`,
        )}</tbody></table>`;
  const body = html`<p class="muted breadcrumbs"><a href="/">Explore</a> / <a href="${problem}">${attempt.problem_slug}</a> / <a href="${problem}?revision=${String(attempt.revision_number)}">revision ${String(attempt.revision_number)}</a> / attempt</p>
<h1>Attempt <code>${attempt.id}</code></h1>
<table><tbody>
<tr><th scope="row">Problem</th><td><a href="${problem}">${attempt.problem_slug}</a>, revision ${String(attempt.revision_number)}</td></tr>
<tr><th scope="row">Status</th><td data-testid="attempt-status">${attempt.status}</td></tr>
<tr><th scope="row">Outcome</th><td data-testid="attempt-outcome">${attempt.outcome ?? "-"}</td></tr>
<tr><th scope="row">Started</th><td>${String(attempt.started_at)}</td></tr>
<tr><th scope="row">Ended</th><td>${attempt.ended_at ? String(attempt.ended_at) : "-"}</td></tr>
<tr><th scope="row">Notes</th><td>${String(attempt.notes_count)}</td></tr>
${attempt.continues_attempt_id ? html`<tr><th scope="row">Continues</th><td><a href="/attempts/${encodeURIComponent(attempt.continues_attempt_id)}">${attempt.continues_attempt_id}</a></td></tr>` : html``}
</tbody></table>
${attempt.summary_note ? html`<h2>Summary</h2><div class="statement" data-testid="summary">${renderMarkdown(attempt.summary_note.body_md)}</div>` : html``}
${renderYourSubmissions(attempt.submissions)}
<h2>Files</h2>
${artifacts}
${end}`;
  return renderSitePage(`Attempt ${attempt.id}`, visitor, "me", body);
}
