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
  const body = html`<h1>Verification <code>${run.id}</code></h1>
${revoked}
<table>
<tr><th>Status</th><td data-testid="status">${run.status}</td></tr>
<tr><th>Result</th><td><span data-testid="result" class="result ${run.result ?? ""}">${run.result ?? (run.status === "finished" ? "withheld" : "pending")}</span></td></tr>
<tr><th>Score</th><td data-testid="score">${run.score === null ? "-" : String(run.score)}</td></tr>
<tr><th>Submission</th><td><code>${run.submission_id}</code></td></tr>
<tr><th>Revision</th><td><code>${run.problem_revision_id}</code></td></tr>
<tr><th>Contract</th><td><code>${run.verifier_contract_id}</code></td></tr>
<tr><th>Trigger</th><td>${run.trigger}</td></tr>
<tr><th>Created</th><td>${run.created_at}</td></tr>
<tr><th>Finished</th><td>${run.finished_at ?? "-"}</td></tr>
</table>
<h2>Stages</h2>
${stages.length === 0 ? html`<p>No stage has started yet.</p>` : stages}
<h2>Evidence</h2>
<div class="evidence" data-testid="evidence">${renderMarkdown(run.evidence_md)}</div>`;
  return renderSitePage(`Verification ${run.id}: ${run.result ?? run.status}`, visitor, "none", body);
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
