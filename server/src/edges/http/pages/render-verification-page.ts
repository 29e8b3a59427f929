import type { StageResultRecord, VerificationRun } from "../../../verification/verification-run.ts";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/**
 * The web view of a run (`GET /verifications/{id}`): status, result and score, then each stage
 * with its result, mechanism and a link to its log. Evidence is Markdown shown as preformatted
 * text: it is the checker's words and is never rendered as HTML. A finished run without a result
 * is one whose sealed evaluation withholds the outcome from this reader ("withheld").
 */
export function renderVerificationPage(run: VerificationRun): string {
  const stageRows = run.stage_results.map(renderStage).join("\n");
  const revoked = run.revocation
    ? `<p class="revoked" data-testid="revocation">Revoked ${escapeHtml(run.revocation.revoked_at)}: ${escapeHtml(run.revocation.reason_md)}</p>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verification ${escapeHtml(run.id)}: ${escapeHtml(run.result ?? run.status)}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
.result { font-weight: 600; padding: 0.1rem 0.5rem; border-radius: 0.3rem; background: #eef; }
.verified { background: #dcfce7; } .refuted { background: #fee2e2; } .inconclusive { background: #fef9c3; } .error { background: #e5e7eb; }
pre { white-space: pre-wrap; background: #f6f8fa; padding: 0.75rem; border-radius: 0.3rem; }
table { border-collapse: collapse; } td, th { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; vertical-align: top; }
.revoked { color: #991b1b; font-weight: 600; }
</style>
</head>
<body>
<h1>Verification <code>${escapeHtml(run.id)}</code></h1>
${revoked}
<table>
<tr><th>Status</th><td data-testid="status">${escapeHtml(run.status)}</td></tr>
<tr><th>Result</th><td><span data-testid="result" class="result ${escapeHtml(run.result ?? "")}">${escapeHtml(run.result ?? (run.status === "finished" ? "withheld" : "pending"))}</span></td></tr>
<tr><th>Score</th><td data-testid="score">${run.score === null ? "-" : escapeHtml(String(run.score))}</td></tr>
<tr><th>Submission</th><td><code>${escapeHtml(run.submission_id)}</code></td></tr>
<tr><th>Revision</th><td><code>${escapeHtml(run.problem_revision_id)}</code></td></tr>
<tr><th>Contract</th><td><code>${escapeHtml(run.verifier_contract_id)}</code></td></tr>
<tr><th>Trigger</th><td>${escapeHtml(run.trigger)}</td></tr>
<tr><th>Created</th><td>${escapeHtml(run.created_at)}</td></tr>
<tr><th>Finished</th><td>${escapeHtml(run.finished_at ?? "-")}</td></tr>
</table>
<h2>Stages</h2>
${stageRows === "" ? "<p>No stage has started yet.</p>" : stageRows}
<h2>Evidence</h2>
<pre data-testid="evidence">${escapeHtml(run.evidence_md)}</pre>
</body>
</html>
`;
}

function renderStage(stage: StageResultRecord): string {
  const sandbox = stage.mechanism.sandbox;
  const mechanism = sandbox
    ? `<p>Implementation <code>${escapeHtml(sandbox.verifier_implementation_id)}</code> on ${escapeHtml(sandbox.backend)}; exit code ${escapeHtml(String(sandbox.exit_code ?? "-"))}; ${sandbox.duration_ms === null ? "in process" : `${sandbox.duration_ms} ms`}; evidence ${escapeHtml(sandbox.evidence_hash ?? "none")}</p>`
    : "";
  const log = stage.log
    ? `<p><a href="${escapeHtml(stage.log.url)}">Log</a> (${stage.log.size_bytes} bytes${stage.log.truncated ? ", truncated" : ""})</p>`
    : "";
  return `<section class="stage" data-stage="${escapeHtml(stage.stage_key)}">
<h3><code>${escapeHtml(stage.stage_key)}</code> (${escapeHtml(stage.kind)}): <span class="result ${escapeHtml(stage.result ?? "")}">${escapeHtml(stage.result ?? stage.status)}</span></h3>
${mechanism}
${log}
<pre>${escapeHtml(stage.evidence_md)}</pre>
</section>`;
}
