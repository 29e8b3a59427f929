import type { RunLinks } from "../../../verification/run-links.ts";
import type { StageResultRecord, VerificationRun } from "../../../verification/verification-run.ts";
import type { WaitingStage } from "../../../verification/waiting-stages.ts";
import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/**
 * The web view of a run (`GET /verifications/{id}`): status, result and score, then each stage
 * attempted with its result, mechanism and a link to its log, then the stages still waiting
 * without a mechanism and why (they are not in the record, waiting-stages.ts). Evidence is the
 * checker's Markdown, rendered and sanitized like an author's (render-markdown.ts). A finished run without a result
 * is one whose sealed evaluation withholds the outcome from this reader ("withheld").
 */
export function renderVerificationPage(
  run: VerificationRun,
  visitor: SiteVisitor,
  waiting: readonly WaitingStage[] = [],
  links: RunLinks | null = null,
  /** The run's newest attestation in the transparency log (null: still queued, or not finished). */
  attestation: { log_index: number | null } | null = null,
): Html {
  const stages = [
    ...run.stage_results.map((stage) => renderStage(run.id, stage)),
    ...waiting.map(
      (stage) => html`<section class="stage waiting" data-stage="${stage.stage_key}">
<h3><code>${stage.stage_key}</code> (${stage.kind}): <span class="result">${stage.status}</span></h3>
<div class="evidence">${renderMarkdown(stage.evidence_md)}</div>
</section>`,
    ),
  ].map((stage, i) => html`${i > 0 && "\n"}${stage}`);
  const revoked =
    run.revocation &&
    html`<div data-testid="revocation"><p class="revoked">Revoked ${run.revocation.revoked_at}:</p>${renderMarkdown(run.revocation.reason_md)}</div>`;
  const inProgress = run.status === "queued" || run.status === "running";
  const body = html`${links && renderBreadcrumbs(links)}
<h1>Verification <code>${run.id}</code></h1>
${inProgress && html`<p role="status" data-testid="refreshing">This run is ${run.status}: the page reloads every ${String(REFRESH_SECONDS)} seconds until it finishes.</p>`}
${revoked}
${links && renderRelated(links)}
<table>
<tr><th>Status</th><td data-testid="status">${run.status}</td></tr>
<tr><th>Result</th><td><span data-testid="result" class="result ${run.result ?? ""}">${run.result ?? (run.status === "finished" ? "withheld" : "pending")}</span></td></tr>
<tr><th>Score</th><td data-testid="score">${run.score === null ? "-" : String(run.score)}</td></tr>
<tr><th>Submission</th><td>${links ? html`<a href="/attempts/${encodeURIComponent(links.attempt_id)}#your-submissions"><code>${run.submission_id}</code></a>` : html`<code>${run.submission_id}</code>`}</td></tr>
<tr><th>Revision</th><td>${links ? html`<a href="/problems/${encodeURIComponent(links.problem_slug)}?revision=${String(links.revision_number)}">revision ${String(links.revision_number)}</a> <code>${run.problem_revision_id}</code>` : html`<code>${run.problem_revision_id}</code>`}</td></tr>
<tr><th>Contract</th><td><code>${run.verifier_contract_id}</code></td></tr>
<tr><th>Trigger</th><td>${run.trigger}</td></tr>
<tr><th>Created</th><td>${run.created_at}</td></tr>
<tr><th>Finished</th><td>${run.finished_at ?? "-"}</td></tr>
</table>
<h2>Stages</h2>
${stages.length === 0 ? html`<p>No stage has started yet.</p>` : stages}
<h2>Evidence</h2>
<div class="evidence" data-testid="evidence">${renderMarkdown(run.evidence_md)}</div>
${run.status === "finished" && renderAttestation(run.id, attestation?.log_index ?? null)}`;
  return renderSitePage(`Verification ${run.id}: ${run.result ?? run.status}`, visitor, "none", body, {
    refreshSeconds: inProgress ? REFRESH_SECONDS : undefined,
  });
}

/** How often a run still in progress reloads itself (a meta refresh: the pages run no script). */
const REFRESH_SECONDS = 3;

function renderBreadcrumbs(links: RunLinks): Html {
  const problem = `/problems/${encodeURIComponent(links.problem_slug)}`;
  return html`<p class="muted breadcrumbs"><a href="/">Explore</a> / <a href="${problem}">${links.problem_slug}</a> / <a href="/attempts/${encodeURIComponent(links.attempt_id)}">attempt</a> / run</p>`;
}

/**
 * Where to go from a run: its Problem, Attempt, leaderboard and review processes. One list, so
 * a new related record (an attestation, say) is one more item here.
 */
function renderRelated(links: RunLinks): Html {
  const problem = `/problems/${encodeURIComponent(links.problem_slug)}`;
  const items: Html[] = [
    html`<li><a href="${problem}">Problem ${links.problem_slug}</a></li>`,
    html`<li><a href="/attempts/${encodeURIComponent(links.attempt_id)}">Attempt ${links.attempt_id}</a></li>`,
  ];
  if (links.scored)
    items.push(
      html`<li><a href="${problem}/leaderboard?revision=${String(links.revision_number)}">Leaderboard of revision ${String(links.revision_number)}</a></li>`,
    );
  for (const review of links.review_processes)
    items.push(
      html`<li><a href="/review-processes/${encodeURIComponent(review.id)}" data-testid="review-process">Review process of stage ${review.stage_key}</a></li>`,
    );
  return html`<nav aria-label="Related"><ul class="related" data-testid="related">${items}</ul></nav>`;
}

function renderStage(runId: string, stage: StageResultRecord): Html {
  const sandbox = stage.mechanism.sandbox;
  const mechanism =
    sandbox &&
    html`<p>Implementation <code>${sandbox.verifier_implementation_id}</code> on ${sandbox.backend}; exit code ${String(sandbox.exit_code ?? "-")}; ${sandbox.duration_ms === null ? "in process" : `${sandbox.duration_ms} ms`}; evidence ${sandbox.evidence_hash ?? "none"}</p>`;
  const evidence =
    sandbox?.evidence_hash &&
    html`<p><a data-testid="evidence-files" href="/verifications/${encodeURIComponent(runId)}/stages/${encodeURIComponent(stage.stage_key)}/evidence">Evidence files</a></p>`;
  const log =
    stage.log &&
    html`<p><a href="${stage.log.url}">Log</a> (${stage.log.size_bytes} bytes${stage.log.truncated && ", truncated"})${
      stage.log.redaction &&
      html` <span class="redacted" data-testid="redaction">redacted ${stage.log.redaction.redacted_at} (${stage.log.redaction.reason}); the original was ${stage.log.redaction.original_size_bytes} bytes, ${stage.log.redaction.original_content_hash}</span>`
    }</p>`;
  return html`<section class="stage" data-stage="${stage.stage_key}">
<h3><code>${stage.stage_key}</code> (${stage.kind}): <span class="result ${stage.result ?? ""}">${stage.result ?? stage.status}</span></h3>
${mechanism}
${evidence}
${log}
<div class="evidence">${renderMarkdown(stage.evidence_md)}</div>
</section>`;
}

/**
 * Where anyone checks this verdict without trusting the service (docs/attestations.md): the signed
 * attestation's place in the transparency log and the two commands, as read-only fields to copy.
 */
function renderAttestation(runId: string, logIndex: number | null): Html {
  const verify = `npx svc attestation verify ${runId}`;
  const replay = `npx svc verify --replay ${runId}`;
  return html`<h2 id="attestation">Check it yourself</h2>
<section data-testid="attestation">
${
  logIndex === null
    ? html`<p>The signed attestation of this run is being added to the transparency log; it is there within seconds.</p>`
    : html`<p>This verdict is signed (an in-toto attestation in a DSSE envelope) and is entry <strong data-testid="log-index">${String(logIndex)}</strong> of the service's transparency log. Its envelope and inclusion proof are at <code>GET /api/verifications/${runId}/attestations</code>; the signing keys at <code>/.well-known/svc-attestation-keys</code>.</p>`
}
<p><label>Check the signature, your files and the log<br><input class="copy" readonly value="${verify}" aria-label="Command that checks the attestation"></label></p>
<p><label>Re-run the sandbox stages on your machine and compare<br><input class="copy" readonly value="${replay}" aria-label="Command that replays the run"></label></p>
</section>`;
}
