import { UploadState } from "@svc/schemas";
import type { AuthoringUpload } from "../../../authoring/authoring-upload.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";
import { renderConformanceFailures } from "./render-conformance-failures.ts";
import { jsonBlock } from "./render-review-html.ts";

/** What an upload's page shows: the upload, the CSRF field for its forms, and a refusal. */
export interface UploadView {
  upload: AuthoringUpload;
  csrf: Html;
  refusal: { code: string; message: string } | null;
}

/** States in which validating (again) is possible: the bytes arrived and nothing was published. */
const VALIDATABLE: readonly string[] = [UploadState.uploaded, UploadState.validated, UploadState.invalid];

/**
 * `GET /work/uploads/{id}`: a package upload as validate_authoring_upload left it: its state, the
 * errors and notes, each checker's conformance fixtures (a failed one with why and the checker's
 * own output), the reconciliation (what publishing would do to the Campaign and each Problem)
 * and the plan with its plan_hash; a Validate button while it can be (re)validated and a Publish
 * button, carrying the plan_hash shown, while it is valid. Every value is escaped by `html`.
 */
export function renderUploadPage(view: UploadView, visitor: SiteVisitor): Html {
  const { upload, csrf, refusal } = view;
  const v = upload.validation;
  const reconciliation = v?.reconciliation ?? null;
  const problems = (reconciliation?.problems ?? []).map(
    (p) => html`<tr data-problem="${p.slug}">
<td>${p.slug}</td>
<td data-testid="action"><code>${p.action}</code></td>
<td>${p.next_revision_number === undefined ? "-" : String(p.next_revision_number)}</td>
<td>${p.reason ?? "-"}</td>
</tr>`,
  );
  const errors = (v?.errors ?? []).map(
    (e) =>
      html`<li><code>${e.code}</code> ${e.file}${e.path ? html` <code>${e.path}</code>` : ""}: ${e.message}</li>`,
  );
  const notes = (v?.notes ?? []).map((n) => html`<li>${JSON.stringify(n)}</li>`);
  const conformance = v?.conformance ?? [];
  const failed = conformance
    .filter((c) => !c.passed)
    .map((c) => ({
      ...c,
      implementation: c.program ?? c.image_ref,
      detail: c.detail ?? "",
      log_tail: c.log_tail ?? "",
    }));
  const fixtures = conformance.map(
    (c) => html`<tr data-fixture="${c.fixture}">
<td>${c.stage_key}</td>
<td>${c.fixture}</td>
<td><code>${c.program ?? c.image_ref}</code></td>
<td>${c.expected}</td>
<td>${c.actual}</td>
<td data-testid="fixture-passed">${c.passed ? "passed" : html`<strong class="error">failed</strong>`}</td>
</tr>`,
  );
  const body = html`<h1>Upload <code>${upload.id}</code></h1>
${refusal && html`<p role="alert" class="error" data-testid="refusal" data-code="${refusal.code}">Not done: ${refusal.message}</p>`}
<table>
<tr><th scope="row">State</th><td data-testid="upload-state">${upload.state}</td></tr>
<tr><th scope="row">Size</th><td>${String(upload.size_bytes)} bytes</td></tr>
<tr><th scope="row">Content hash</th><td><code>${upload.content_hash}</code></td></tr>
<tr><th scope="row">Plan hash</th><td data-testid="plan-hash">${upload.plan_hash ? html`<code>${upload.plan_hash}</code>` : "-"}</td></tr>
<tr><th scope="row">Valid</th><td data-testid="valid">${v ? (v.valid ? (failed.length > 0 ? html`yes, but <strong class="error">${String(failed.length)} conformance fixture${failed.length === 1 ? "" : "s"} failed</strong>: that checker will not become current` : "yes") : "no") : "not validated"}</td></tr>
</table>
${
  VALIDATABLE.includes(upload.state)
    ? html`<form method="post" action="/work/uploads/${upload.id}/validate" class="inline">${csrf}<button type="submit" class="secondary" data-testid="validate">Validate again</button></form>`
    : ""
}
${
  upload.state === UploadState.validated && v?.valid && upload.plan_hash
    ? html`<form method="post" action="/work/uploads/${upload.id}/publish" class="inline">${csrf}<input type="hidden" name="plan_hash" value="${upload.plan_hash}"><button type="submit" data-testid="publish">Publish this plan</button></form>`
    : ""
}
${errors.length > 0 ? html`<h2>Errors</h2><ul data-testid="errors">${errors}</ul>` : ""}
${notes.length > 0 ? html`<h2>Notes</h2><ul>${notes}</ul>` : ""}
${
  conformance.length > 0 || v?.conformance_state === "pending"
    ? html`<h2>Conformance</h2>
${v?.conformance_state === "pending" ? html`<p data-testid="conformance-pending">Sandboxed fixtures are queued on the service; validate again to read them once they ran.</p>` : ""}
${fixtures.length > 0 ? html`<table data-testid="conformance"><caption class="muted">Each checker on its contract's fixtures</caption><thead><tr><th scope="col">Stage</th><th scope="col">Fixture</th><th scope="col">Checker</th><th scope="col">Expected</th><th scope="col">Actual</th><th scope="col">Outcome</th></tr></thead><tbody>${fixtures}</tbody></table>` : ""}
${renderConformanceFailures(failed, "conformance-failures")}`
    : ""
}
<h2>Reconciliation</h2>
${
  reconciliation === null
    ? html`<p data-testid="no-reconciliation">None: the package has not been validated into a plan.</p>`
    : html`<p>Campaign: ${reconciliation.campaign ? html`${reconciliation.campaign.slug} <code data-testid="campaign-action">${reconciliation.campaign.action}</code>${reconciliation.campaign.reason ? html` (${reconciliation.campaign.reason})` : ""}` : "none"}</p>
<table data-testid="reconciliation">
<caption class="muted">What publishing does to each problem</caption>
<thead><tr><th scope="col">Problem</th><th scope="col">Action</th><th scope="col">Next revision</th><th scope="col">Reason</th></tr></thead>
<tbody>${problems}</tbody>
</table>`
}
${v?.plan ? html`<h2>Plan</h2>${jsonBlock(v.plan, "plan")}` : ""}
${upload.publish_result ? html`<h2>Published</h2>${jsonBlock(upload.publish_result, "publish-result")}` : ""}
<p><a href="/work">Back to my work</a> · <a href="/work/audit">Work history</a></p>`;
  return renderSitePage(`Upload ${upload.id}`, visitor, "work", body);
}
