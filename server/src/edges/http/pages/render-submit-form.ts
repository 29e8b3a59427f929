import type { RequiredArtifact, SubmissionRequirements } from "@svc/schemas";
import type { SubmissionAllowance } from "../../../sealing/submission-allowance.ts";
import type { Submission } from "../../../submissions/submission.ts";
import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";

/** What the problem page knows of the signed-in participant, for the submit form. */
export interface Participation {
  /** The form's CSRF field; null for a bearer-token reader (who cannot post forms). */
  csrf: Html | null;
  /** The caller's active Attempts on this Problem, newest first. */
  activeAttemptIds: readonly string[];
  /** The caller's Submissions on this Problem, oldest first. */
  submissions: readonly Submission[];
  /** The refusal that stops a Submission now (cutoff, quota, archived), or null. */
  closed: string | null;
}

/** The media type a role's pasted text is stored as: its first text type, or null when it takes none. */
export function textMediaType(role: RequiredArtifact): string | null {
  return role.media_types.find((t) => t.startsWith("text/") || t === "application/json") ?? null;
}

/** "12 bytes", "4 KiB", "2.5 MiB". */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * "How to submit": each role with its media types and size limit, the answer format, and the same
 * Submission by command line (`svc verify` preflight) and by an agent (MCP tool calls), ready to copy.
 */
export function renderHowToSubmit(
  slug: string,
  requirements: SubmissionRequirements | null,
  baseUrl: string,
): Html {
  const roles = requirements?.required_artifacts ?? [];
  const table =
    roles.length === 0
      ? html`<p>${requirements?.accepts_text_only ? "No file: the answer is your text, in the format below." : "No Contract: any file is recorded, nothing is verified."}</p>`
      : html`<table data-testid="roles" class="stack">
<thead><tr><th scope="col">Role</th><th scope="col">What</th><th scope="col">Media types</th><th scope="col">At most</th></tr></thead>
<tbody>${roles.map(
          (role) =>
            html`<tr data-role="${role.role}"><td data-label="Role"><code>${role.role}</code></td><td data-label="What">${role.description}</td><td data-label="Media types">${role.media_types.join(", ")}</td><td data-label="At most">${byteSize(role.max_bytes)}</td></tr>`,
        )}</tbody>
</table>`;
  const artifactsArg = roles.map((r) => `--artifact ${r.role}=./${r.role}${exampleExtension(r)}`).join(" ");
  const mcpCalls = [
    `start_attempt {"problem": "${slug}"}`,
    ...roles.map(
      (r) =>
        `upload_artifact {"attempt_id": "att_...", "filename": "${r.role}${exampleExtension(r)}", "content_text": "..."}`,
    ),
    `create_submission {"attempt_id": "att_...", "artifacts": [${roles.map((r) => `{"role": "${r.role}", "artifact_id": "art_..."}`).join(", ")}]}`,
  ].join("\n");
  return html`<h2 id="how-to-submit">How to submit</h2>
${table}
${requirements?.answer_format_md ? html`<h3>Answer format</h3><div class="statement" data-testid="answer-format">${renderMarkdown(requirements.answer_format_md)}</div>` : html``}
<h3>From a terminal or an agent</h3>
<p>Check your files against the published checkers first (submits nothing, uses no quota):</p>
<label class="visually-hidden" for="verify-snippet">svc verify command</label>
<textarea id="verify-snippet" class="snippet" readonly rows="3">svc login --server ${baseUrl}
svc verify ${slug} ${artifactsArg}</textarea>
<p>An agent connected to <code>${baseUrl}/mcp</code> (<a href="/connect">Connect an agent</a>) submits with:</p>
<label class="visually-hidden" for="mcp-snippet">MCP tool calls</label>
<textarea id="mcp-snippet" class="snippet" readonly rows="${String(2 * roles.length + 4)}">${mcpCalls}</textarea>`;
}

/** The file extension a media type is named by (the inverse of mediaTypeOf, for the common types). */
export const EXTENSION_OF: Readonly<Record<string, string>> = {
  "text/plain": ".txt",
  "text/markdown": ".md",
  "text/csv": ".csv",
  "application/json": ".json",
  "text/x-python": ".py",
  "application/zip": ".zip",
  "application/pdf": ".pdf",
  "image/png": ".png",
};

function exampleExtension(role: RequiredArtifact): string {
  return EXTENSION_OF[role.media_types[0] ?? ""] ?? "";
}

/**
 * The submit form (multipart, posted to `/problems/{slug}/submit`): which Attempt (a new one, or
 * one of the caller's active ones), then per role a file input limited to the role's media types
 * and, where the role takes text, a text box; a text-only Contract gets one answer box. The
 * sealed allowance is shown above it; a closed revision shows why instead of the form.
 */
export function renderSubmitForm(
  slug: string,
  requirements: SubmissionRequirements | null,
  participation: Participation,
  allowance: SubmissionAllowance | null,
): Html {
  const quota =
    allowance &&
    html`<p data-testid="submit-allowance">This sealed evaluation allows ${String(allowance.limit.max_submissions)} submissions per ${String(allowance.limit.window_hours)} h; you have ${String(allowance.remaining)} left${allowance.next_reset_at ? html`, the next frees at ${allowance.next_reset_at}` : html``}.</p>`;
  if (participation.closed)
    return html`<h2 id="submit">Submit</h2>${quota}<p class="refusal" data-testid="submit-closed">${participation.closed}</p>`;
  if (!participation.csrf)
    return html`<h2 id="submit">Submit</h2><p class="muted">Sign in with a browser to submit from this page; a token submits through the tools.</p>`;
  const roles = requirements?.required_artifacts ?? [];
  const attempts = participation.activeAttemptIds;
  const choose = html`<p><label for="attempt_id">Attempt</label>
<select id="attempt_id" name="attempt_id">
${attempts.map((id, i) => html`<option value="${id}"${i === 0 ? html` selected` : html``}>continue ${id}</option>`)}
<option value="new"${attempts.length === 0 ? html` selected` : html``}>start a new attempt</option>
</select></p>`;
  const fields = roles.map((role) => {
    const id = `file-${role.role}`;
    const text = textMediaType(role);
    return html`<fieldset data-role="${role.role}"><legend>${role.role}</legend>
<p class="muted">${role.description} (${role.media_types.join(", ")}; at most ${byteSize(role.max_bytes)})</p>
<p><label for="${id}">File for ${role.role}</label><br>
<input type="file" id="${id}" name="file:${role.role}" accept="${acceptOf(role)}"></p>
${text ? html`<p><label for="text-${role.role}">Or paste it (${text})</label><br><textarea id="text-${role.role}" name="text:${role.role}" rows="6" maxlength="${String(512 * 1024)}"></textarea></p>` : html``}
</fieldset>`;
  });
  const answer =
    requirements?.accepts_text_only &&
    html`<p><label for="answer_md">Your answer${roles.length > 0 ? " (instead of files)" : ""}, in Markdown</label><br>
<textarea id="answer_md" name="answer_md" rows="8" maxlength="20000"${roles.length === 0 ? html` required` : html``}></textarea><br>
<span class="muted">Kept as a note on the Attempt: the answer is the Attempt's text.</span></p>`;
  return html`<h2 id="submit">Submit</h2>
${quota}
<form method="post" action="/problems/${encodeURIComponent(slug)}/submit" enctype="multipart/form-data" class="submit" data-testid="submit-form">
${participation.csrf}
${choose}
${fields}
${answer}
<p><button type="submit" data-testid="submit">Submit for verification</button></p>
</form>`;
}

/** `accept` for a role: its media types and the extensions that map to them. */
function acceptOf(role: RequiredArtifact): string {
  const extensions = role.media_types.map((t) => EXTENSION_OF[t]).filter((e) => e !== undefined);
  return [...role.media_types, ...extensions].join(",");
}

/** The caller's Submissions on this Problem, newest first, each with its latest run. */
export function renderYourSubmissions(submissions: readonly Submission[]): Html {
  if (submissions.length === 0)
    return html`<h2 id="your-submissions">Your submissions</h2><p class="muted" data-testid="no-submissions">None yet.</p>`;
  const rows = [...submissions].reverse().map((s) => {
    const run = s.latest_verification;
    const result = run ? (run.result ?? (run.status === "finished" ? "withheld" : "pending")) : "no run";
    return html`<tr data-submission="${s.id}">
<td data-label="Submitted">${s.created_at.slice(0, 16).replace("T", " ")} UTC</td>
<td data-label="Attempt"><a href="/attempts/${encodeURIComponent(s.attempt_id)}">${s.attempt_id}</a></td>
<td data-label="Run">${run ? html`<a href="/verifications/${encodeURIComponent(run.id)}">${run.status}</a>` : "-"}</td>
<td data-label="Result"><span class="result ${run?.result ?? ""}" data-testid="your-result">${result}</span>${s.status === "withdrawn" ? " (withdrawn)" : ""}</td>
<td data-label="Score" data-testid="your-score">${run?.score === null || run?.score === undefined ? "-" : String(run.score)}</td>
</tr>`;
  });
  return html`<h2 id="your-submissions">Your submissions</h2>
<table data-testid="your-submissions" class="stack">
<thead><tr><th scope="col">Submitted</th><th scope="col">Attempt</th><th scope="col">Run</th><th scope="col">Result</th><th scope="col">Score</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}
