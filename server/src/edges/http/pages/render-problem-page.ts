import type { SubmissionRequirements } from "@svc/schemas";
import type { ProblemEnvelope } from "../../../discovery/get-problem.ts";
import type { RevisionHistoryEntry } from "../../../problems/list-problem-revisions.ts";
import type { VerifierContract } from "../../../verifier-contracts/verifier-contract.ts";
import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";
import {
  type Participation,
  renderHowToSubmit,
  renderSubmitForm,
  renderYourSubmissions,
} from "./render-submit-form.ts";

export interface ProblemPage {
  envelope: ProblemEnvelope;
  history: RevisionHistoryEntry[];
  contract: VerifierContract | null;
  /** Signed-in visitors get download links for public bytes; visitors see metadata only. */
  signedIn: boolean;
  /** What the pinned Contract asks of a Submission; null without a Contract. */
  requirements: SubmissionRequirements | null;
  /** The signed-in reader's Submissions, Attempts and form; null for a visitor. */
  participation: Participation | null;
  /** The service's public address, for the ready-to-copy snippets. */
  baseUrl: string;
}

/** A Contract stage as the page reads it from the published document. */
interface StageView {
  key: string;
  kind: string;
  title: string;
  description_md?: string;
  rule_owner?: string;
  acceptance: string;
  result_kind?: string | null;
  external_system?: string | null;
}

/**
 * A Problem (`GET /problems/{slug}`, `?revision=N` for an earlier one): the statement rendered
 * from the author's Markdown (markdown-it without raw HTML, then sanitize-html), the benchmark
 * metric, sealing with the visitor's allowance, reference inputs (sealed ones shown as sealed,
 * with no link), skills, the Contract and its stages, and the revision history with changelogs
 * and diffs.
 */
export function renderProblemPage(page: ProblemPage, visitor: SiteVisitor): Html {
  const { problem, revision } = page.envelope;
  const path = `/problems/${encodeURIComponent(problem.slug)}`;
  const older =
    revision.revision_number !== problem.current_revision_number &&
    html`<p role="note" data-testid="older-revision">You are reading revision ${String(revision.revision_number)}; the current one is <a href="${path}">revision ${String(problem.current_revision_number)}</a>.</p>`;
  const body = html`<p class="muted"><a href="/">Explore</a> / ${
    problem.campaign_slug
      ? html`<a href="/campaigns/${encodeURIComponent(problem.campaign_slug)}">${problem.campaign_slug}</a>`
      : "standalone"
  }</p>
<h1>${problem.title}</h1>
<p>${problem.summary}</p>
<p><span class="tag">${problem.structure}</span> <span class="tag">${problem.status}</span> <span class="tag">${problem.visibility}</span> <span class="muted">revision ${String(revision.revision_number)}, published ${revision.created_at}; priority ${problem.priority_weight.toFixed(2)}</span></p>
${older}
${
  problem.structure === "BENCHMARK" || page.contract?.result_kind === "score"
    ? html`<p><a href="${path}/leaderboard">Leaderboard</a></p>`
    : html``
}
<h2 id="statement">Statement</h2>
<div class="statement" data-testid="statement">${renderMarkdown(revision.statement_md)}</div>
${revision.context_md ? html`<h2 id="context">Context</h2><div class="statement">${renderMarkdown(revision.context_md)}</div>` : html``}
${renderBenchmark(revision.benchmark)}
${renderSealing(page)}
${renderReferences(page)}
${renderSkills(page)}
${renderContract(page.contract)}
${renderHowToSubmit(problem.slug, page.requirements, page.baseUrl)}
${
  page.participation
    ? html`${renderSubmitForm(problem.slug, page.requirements, page.participation, page.envelope.submission_allowance)}
${renderYourSubmissions(page.participation.submissions)}`
    : html`<h2 id="submit">Submit</h2><p><a href="/sign-in?return_to=${encodeURIComponent(visitor.path)}">Sign in</a> to submit from this page and see your results.</p>`
}
${renderHistory(page.history, path, revision.revision_number)}`;
  return renderSitePage(problem.title, visitor, "explore", body);
}

function renderBenchmark(benchmark: Record<string, unknown> | null): Html {
  if (!benchmark) return html``;
  const direction = benchmark.direction === "minimize" ? "lower is better" : "higher is better";
  return html`<h2 id="benchmark">Benchmark</h2>
<table data-testid="benchmark"><tbody>
<tr><th scope="row">Metric</th><td>${String(benchmark.metric_name)}${benchmark.unit ? html` (${String(benchmark.unit)})` : html``}</td></tr>
<tr><th scope="row">Direction</th><td>${String(benchmark.direction)}: ${direction}</td></tr>
<tr><th scope="row">Baseline</th><td>${benchmark.baseline === null || benchmark.baseline === undefined ? "none" : String(benchmark.baseline)}</td></tr>
</tbody></table>`;
}

function renderSealing({ envelope, signedIn }: ProblemPage): Html {
  const sealing = envelope.revision.sealing;
  if (!sealing) return html``;
  const release = sealing.score_release as { mode: string; release_at: string | null } | undefined;
  const allowance = envelope.submission_allowance;
  const quota = allowance
    ? html`<tr><th scope="row">Your submissions</th><td data-testid="allowance">${String(allowance.used)} of ${String(allowance.limit.max_submissions)} in ${String(allowance.limit.window_hours)} h used; ${String(allowance.remaining)} left${allowance.next_reset_at ? html`; the next frees at ${allowance.next_reset_at}` : html``}</td></tr>`
    : signedIn
      ? html``
      : html`<tr><th scope="row">Your submissions</th><td class="muted">sign in to see your allowance</td></tr>`;
  return html`<h2 id="sealing">Sealed evaluation</h2>
<table data-testid="sealing"><tbody>
<tr><th scope="row">Sealed until</th><td>${sealing.unsealed_at ? html`unsealed at ${sealing.unsealed_at}` : sealing.sealed_until}</td></tr>
<tr><th scope="row">Submissions close</th><td>${sealing.submission_closes_at ?? "with the sealing"}</td></tr>
<tr><th scope="row">Scores</th><td>${release?.mode === "final_only" ? `withheld until ${release.release_at}` : "shown as runs finish"}</td></tr>
${quota}
</tbody></table>`;
}

function renderReferences({ envelope, signedIn }: ProblemPage): Html {
  const entries = envelope.reference_resources;
  if (entries.length === 0) return html``;
  const rows = entries.map((entry) => {
    const access = entry.sealed
      ? html`<span class="sealed">sealed until ${entry.sealed_until ?? "release"}</span>`
      : entry.url
        ? html`linked: <a href="${entry.url}">${entry.url}</a>`
        : signedIn && entry.download_url
          ? html`<a href="${entry.download_url}">Download</a> <span class="muted">(link valid 15 minutes)</span>`
          : html`<span class="muted">public; sign in to download</span>`;
    return html`<tr data-reference="${entry.key}"><td><code>${entry.key}</code></td><td>${entry.media_type}</td><td>${String(entry.size_bytes)} bytes</td><td><code>${entry.content_hash}</code></td><td>${access}</td></tr>`;
  });
  return html`<h2 id="references">Reference inputs</h2>
<table data-testid="references">
<thead><tr><th scope="col">Key</th><th scope="col">Media type</th><th scope="col">Size</th><th scope="col">Content hash</th><th scope="col">Access</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

function renderSkills({ envelope, signedIn }: ProblemPage): Html {
  const skills = envelope.skill_resources;
  if (skills.length === 0) return html``;
  const rows = skills.map(
    (skill) =>
      html`<tr><td><code>${skill.skill_version_id}</code></td><td>${skill.requirement}</td><td>${String(skill.files.length)} files</td><td>${signedIn && skill.download_url ? html`<a href="${skill.download_url}">Download</a>` : html`<span class="muted">${skill.entry_uri}</span>`}</td></tr>`,
  );
  return html`<h2 id="skills">Skills</h2>
<table data-testid="skills">
<thead><tr><th scope="col">Skill version</th><th scope="col">Requirement</th><th scope="col">Files</th><th scope="col">Entry</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

function renderContract(contract: VerifierContract | null): Html {
  if (!contract)
    return html`<h2 id="contract">Verification</h2><p class="muted">No verifier contract: submissions are not verified automatically.</p>`;
  const stages = (contract.stages as StageView[]).map(
    (stage, i) =>
      html`<tr data-stage="${stage.key}"><td>${String(i + 1)}</td><td><code>${stage.key}</code></td><td>${stage.kind}${stage.external_system ? html` (${stage.external_system})` : html``}</td><td>${stage.title}</td><td>${renderMarkdown(stage.acceptance)}</td></tr>`,
  );
  const score = contract.score as { unit?: string; description?: string; direction?: string } | null;
  return html`<h2 id="contract">Verification: ${contract.title}</h2>
<p class="muted">Contract <code>${contract.id}</code>; result ${contract.result_kind}${score ? html`; score in ${score.unit ?? ""}${score.direction ? html`, ${score.direction.replaceAll("_", " ")}` : html``}` : html``}</p>
${contract.statement_md ? html`<div class="statement">${renderMarkdown(contract.statement_md)}</div>` : html``}
<table data-testid="stages">
<thead><tr><th scope="col">#</th><th scope="col">Stage</th><th scope="col">Kind</th><th scope="col">Title</th><th scope="col">Passing means</th></tr></thead>
<tbody>${stages}</tbody>
</table>`;
}

function renderHistory(history: RevisionHistoryEntry[], path: string, shown: number): Html {
  const items = history.map((entry) => {
    const n = entry.revision_number;
    const label =
      n === shown
        ? html`<strong>Revision ${String(n)}</strong>`
        : html`<a href="${path}?revision=${String(n)}">Revision ${String(n)}</a>`;
    const diff =
      n > 1
        ? html` · <a href="${path}/diff?from=${String(n - 1)}&amp;to=${String(n)}">changes from ${String(n - 1)}</a>`
        : html``;
    return html`<li data-revision="${String(n)}">${label} <span class="muted">${entry.created_at}</span>${diff}${
      entry.changelog_md ? html`<div>${renderMarkdown(entry.changelog_md)}</div>` : html``
    }</li>`;
  });
  return html`<h2 id="history">Revision history</h2>
<ol reversed data-testid="history">${items}</ol>`;
}
