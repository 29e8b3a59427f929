import { DraftStatus, PublicationRequestStatus, Visibility } from "@svc/schemas";
import type { WorkDraft } from "../../../drafts/work-draft.ts";
import type { RequestDescription } from "../../../publication-requests/describe-requests.ts";
import type { PublicationRequest } from "../../../publication-requests/publication-request.ts";
import type { WorkAuditLine } from "../../../work-audit/list-work-audit.ts";
import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

const when = (iso: string) =>
  html`<time datetime="${iso}">${iso.replace("T", " ").replace(/\.\d+Z$/, " UTC")}</time>`;
const requestedWork = (r: PublicationRequest) =>
  r.draft_id
    ? html`draft <a href="/work/drafts/${r.draft_id}"><code>${r.draft_id}</code></a> version ${r.draft_version ?? ""}`
    : r.work
      ? "campaign" in r.work
        ? html`campaign <code>${r.work.campaign}</code>`
        : html`problem <code>${r.work.problem}</code>`
      : "-";

/**
 * `GET /work/drafts`: the caller's work drafts (list_work_drafts), newest first, each linking to
 * its page; `nextHref` is the older page's address. Every value is escaped by `html`.
 */
export function renderDraftListPage(
  view: { drafts: readonly WorkDraft[]; nextHref: string | null },
  visitor: SiteVisitor,
): Html {
  const rows = view.drafts.map(
    (d) => html`<tr data-draft="${d.id}">
<td><a href="/work/drafts/${d.id}">${d.title || d.id}</a><br><code class="muted">${d.id}</code></td>
<td>${d.version}</td>
<td data-testid="status">${d.status}</td>
<td>${d.visibility}</td>
<td>${when(d.updated_at)}</td>
</tr>`,
  );
  const body = html`<h1>Authoring: my drafts</h1>
<p class="muted">Packages kept in the service instead of in Git (<code>svc draft</code>, <code>save_work_draft</code>), as <code>list_work_drafts</code> shows them.</p>
${
  rows.length === 0
    ? html`<p data-testid="no-drafts">None yet.</p>`
    : html`<table data-testid="drafts">
<caption class="muted">Your drafts, newest first</caption>
<thead><tr><th scope="col">Draft</th><th scope="col">Version</th><th scope="col">Status</th><th scope="col">Visibility</th><th scope="col">Updated</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${view.nextHref ? html`<p><a href="${view.nextHref}" data-testid="next-drafts">Next page</a></p>` : ""}
<p><a href="/work">Back to my work</a> · <a href="/work/audit">Work history</a></p>`;
  return renderSitePage("My drafts", visitor, "work", body);
}

/** What a draft's page shows. */
export interface DraftView {
  draft: WorkDraft;
  requests: readonly PublicationRequest[];
  history: readonly WorkAuditLine[];
  csrf: Html;
  notice: string | null;
}

/**
 * `GET /work/drafts/{id}`: one draft (get_work_draft): status, versions, its files with hashes and
 * sizes, lint errors, the work it materialized, its publication requests with their state (a
 * **Withdraw** form on a pending one) and its audit history; a **Request publication** form
 * pinning the current version while no request is pending. Every value is escaped by `html`.
 */
export function renderDraftPage(view: DraftView, visitor: SiteVisitor): Html {
  const { draft, csrf } = view;
  const pending = view.requests.find((r) => r.status === PublicationRequestStatus.pending);
  const files = draft.files.map(
    (f) =>
      html`<tr><td><code>${f.path}</code></td><td>${String(f.size_bytes)} bytes</td><td><code>${f.content_hash.slice(0, 19)}…</code></td></tr>`,
  );
  const lint = draft.lint_errors.map(
    (e) =>
      html`<li><code>${e.code}</code> ${e.file}${e.path ? html` <code>${e.path}</code>` : ""}: ${e.message}</li>`,
  );
  const requests = view.requests.map(
    (r) => html`<tr data-request="${r.id}">
<td><code>${r.id}</code></td>
<td>${r.draft_version ?? "-"}</td>
<td>${r.visibility}</td>
<td data-testid="request-status">${r.status}${r.reason_md ? html`<br><span data-testid="request-reason">${r.reason_md}</span>` : ""}</td>
<td>${when(r.created_at)}</td>
<td>${
      r.status === PublicationRequestStatus.pending
        ? html`<form method="post" action="/work/publication-requests/${r.id}/review" class="inline">${csrf}<input type="hidden" name="decision" value="withdraw"><button type="submit" class="secondary" data-testid="withdraw" aria-label="Withdraw request ${r.id}">Withdraw</button></form>`
        : "-"
    }</td>
</tr>`,
  );
  const history = view.history.map(
    (e) =>
      html`<tr data-testid="audit-entry"><td>${when(e.occurred_at)}</td><td>${e.actor_handle}</td><td data-testid="action"><code>${e.action}</code></td><td>${e.subject_kind} <code>${e.subject_id}</code></td></tr>`,
  );
  const work = draft.work;
  const body = html`<h1>Draft: ${draft.title || draft.id}</h1>
${view.notice && html`<p role="status" data-testid="notice">${view.notice}</p>`}
<table>
<tr><th scope="row">Id</th><td><code>${draft.id}</code></td></tr>
<tr><th scope="row">Status</th><td data-testid="draft-status">${draft.status}</td></tr>
<tr><th scope="row">Version</th><td data-testid="draft-version">${draft.version}</td></tr>
<tr><th scope="row">Prepared version</th><td>${draft.prepared_version ?? "-"}</td></tr>
<tr><th scope="row">Published version</th><td>${draft.published_version ?? "-"}</td></tr>
<tr><th scope="row">Visibility</th><td>${draft.visibility}</td></tr>
<tr><th scope="row">Content hash</th><td><code>${draft.content_hash}</code></td></tr>
<tr><th scope="row">Work</th><td>${work ? html`${work.campaign_id ? html`campaign <code>${work.campaign_id}</code> ` : ""}${work.problem_ids.map((id) => html`problem <code>${id}</code> `)}` : "not prepared yet"}</td></tr>
<tr><th scope="row">Updated</th><td>${when(draft.updated_at)}</td></tr>
</table>
<h2>Files</h2>
${
  files.length === 0
    ? html`<p>None.</p>`
    : html`<table data-testid="files"><caption class="muted">The package's files in version ${draft.version}</caption>
<thead><tr><th scope="col">Path</th><th scope="col">Size</th><th scope="col">Content hash</th></tr></thead>
<tbody>${files}</tbody></table>`
}
<details><summary>Write a file</summary>
<form method="post" action="/work/drafts/${draft.id}/files" class="review" data-testid="file-form">${csrf}
<input type="hidden" name="expected_version" value="${draft.version}">
<label for="file-path">Path in the package</label>
<input id="file-path" name="path" required maxlength="300" list="draft-paths" placeholder="statement.md">
<datalist id="draft-paths">${draft.files.map((f) => html`<option value="${f.path}"></option>`)}</datalist>
<label for="file-content">Content (text; replaces the file, or adds it under a new path)</label>
<textarea id="file-content" name="content" rows="12" maxlength="1000000"></textarea>
<label for="file-delete">Or remove the file at that path</label>
<select id="file-delete" name="delete"><option value="no" selected>keep it (write the content)</option><option value="yes">remove it</option></select>
<p><button type="submit" data-testid="save-file">Save a new version</button></p>
</form>
<p class="muted">Saving pins version ${draft.version}: a save made since (in another tab, by <code>svc draft</code>) is refused with the current version named. Binary files and whole packages are saved with <code>svc draft</code>.</p>
</details>
${lint.length > 0 ? html`<h2>Lint errors</h2><ul data-testid="lint-errors">${lint}</ul>` : ""}
<h2>Publication requests</h2>
${
  requests.length === 0
    ? html`<p data-testid="no-requests">None yet.</p>`
    : html`<table data-testid="requests"><caption class="muted">Requests of this draft, newest first</caption>
<thead><tr><th scope="col">Request</th><th scope="col">Version</th><th scope="col">Visibility</th><th scope="col">State</th><th scope="col">Asked</th><th scope="col">Actions</th></tr></thead>
<tbody>${requests}</tbody></table>`
}
<h2>Prepare and publish</h2>
<p class="muted">Preparing validates version ${draft.version} and materializes it as private work; publishing raises that work's visibility (unlisted needs the author role, listed the trusted-author role). Once an administrator has approved a request, request publication instead.</p>
${
  draft.prepared_version === draft.version && draft.status !== DraftStatus.invalid
    ? ""
    : html`<form method="post" action="/work/drafts/${draft.id}/prepare" class="inline">${csrf}<input type="hidden" name="expected_version" value="${draft.version}"><button type="submit" class="secondary" data-testid="prepare">Prepare version ${draft.version}</button></form>`
}
<form method="post" action="/work/drafts/${draft.id}/publish">${csrf}
<input type="hidden" name="expected_version" value="${draft.version}">
<label for="publish-visibility">Publish as</label>
<select id="publish-visibility" name="visibility"><option value="${Visibility.unlisted}">unlisted</option><option value="${Visibility.listed}">listed</option></select>
<button type="submit" data-testid="publish">Publish version ${draft.version}</button>
</form>
${
  pending
    ? ""
    : html`<h2>Request publication</h2><form method="post" action="/work/drafts/${draft.id}/request-publication">${csrf}
<input type="hidden" name="expected_version" value="${draft.version}">
<label for="request-visibility">Visibility to ask for</label>
<select id="request-visibility" name="visibility"><option value="${Visibility.listed}">listed</option><option value="${Visibility.unlisted}">unlisted</option></select>
<label for="request-note">Note for the reviewer (optional)</label>
<textarea id="request-note" name="note_md" rows="2" maxlength="10000"></textarea>
<button type="submit" data-testid="request-publication">Request publication of version ${draft.version}</button>
</form>`
}
<h2>History</h2>
${
  history.length === 0
    ? html`<p>None.</p>`
    : html`<table data-testid="history"><caption class="muted">Newest first; the whole history is on <a href="/work/audit?draft_id=${draft.id}">the work history</a></caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Subject</th></tr></thead>
<tbody>${history}</tbody></table>`
}
<p><a href="/work/drafts">Back to my drafts</a> · <a href="/work">My work</a></p>`;
  return renderSitePage(`Draft ${draft.title || draft.id}`, visitor, "work", body);
}

/**
 * `GET /work/publication-requests` (administrators): the pending requests, oldest first
 * (list_publication_requests), each with **Approve** and **Reject** forms and a reason.
 */
export function renderPublicationRequestsPage(
  view: {
    requests: readonly PublicationRequest[];
    /** Each request's titles, handles and plan, by id. */
    described: ReadonlyMap<string, RequestDescription>;
    csrf: Html;
    notice: string | null;
    nextHref: string | null;
  },
  visitor: SiteVisitor,
): Html {
  const { csrf } = view;
  const named = (r: PublicationRequest) => {
    const d = view.described.get(r.id);
    return d
      ? html`<a href="${d.href}">${d.title}</a>${d.slug ? html` <span class="muted">(${d.slug})</span>` : html``}<br><span class="muted">${requestedWork(r)}</span>`
      : requestedWork(r);
  };
  const rows = view.requests.map(
    (r) => html`<tr data-request="${r.id}">
<td data-label="Work" data-testid="request-title">${named(r)}</td>
<td data-label="Requester" data-testid="request-requester">${view.described.get(r.id)?.requester_handle ?? r.requester_user_id}</td>
<td data-label="Approving will" data-testid="request-plan">${view.described.get(r.id)?.plan ?? r.visibility}</td>
<td data-label="Note">${r.note_md ? renderMarkdown(r.note_md) : "-"}</td>
<td data-label="Asked">${when(r.created_at)}<br><code class="muted">${r.id}</code></td>
<td><form method="post" action="/work/publication-requests/${r.id}/review">${csrf}
<label for="reason-${r.id}">Reason for request ${r.id}</label>
<textarea id="reason-${r.id}" name="reason_md" rows="2" maxlength="10000"></textarea>
<button type="submit" name="decision" value="approve" data-testid="approve">Approve</button>
<button type="submit" name="decision" value="reject" class="secondary" data-testid="reject">Reject</button>
</form></td>
</tr>`,
  );
  const body = html`<h1>Publication requests</h1>
${view.notice && html`<p role="status" data-testid="notice">${view.notice}</p>`}
<p class="muted">Pending requests, oldest first. Approving publishes exactly the pinned version or snapshot; rejecting needs a reason.</p>
${
  rows.length === 0
    ? html`<p data-testid="no-requests">None pending.</p>`
    : html`<table data-testid="requests"><caption class="muted">Pending publication requests</caption>
<thead><tr><th scope="col">Work</th><th scope="col">Requester</th><th scope="col">Approving will</th><th scope="col">Note</th><th scope="col">Asked</th><th scope="col">Decision</th></tr></thead>
<tbody>${rows}</tbody></table>`
}
${view.nextHref ? html`<p><a href="${view.nextHref}" data-testid="next-requests">Next page</a></p>` : ""}
<p><a href="/work">My work</a> · <a href="/work/audit">Work history</a></p>`;
  return renderSitePage("Publication requests", visitor, "work", body);
}
