import { Visibility } from "@svc/schemas";
import type { ManagedWorkEntry, MyWork } from "../../../work/list-my-work.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";
import { renderConformanceFailures } from "./render-conformance-failures.ts";

/** A refusal of one of the page's forms, shown beside the record it was about. */
export interface MyWorkRefusal {
  /** The id of the work, implementation or protocol the form was about. */
  subject: string;
  code: string;
  message: string;
}

/** What the "My work" page shows: the read, the CSRF field for its forms, a notice or a refusal. */
export interface MyWorkView {
  work: MyWork;
  csrf: Html;
  notice: string | null;
  refusal: MyWorkRefusal | null;
  /** The page of Problems shown, from 1. */
  page: number;
  /** An administrator gets links to the publication-request queue and the access page. */
  administrator?: boolean;
}

/**
 * `GET /work`: the author's Campaigns and Problems (visibility, archive state, revisions) with a
 * visibility form under the snapshot guard and an Archive button each; their VerifierImplementations
 * and ReviewProtocols with a Yank form (a yanked one shows its yank instead); their uploads, each
 * linking to its plan and reconciliation. Every value is escaped by `html`.
 */
export function renderMyWorkPage(view: MyWorkView, visitor: SiteVisitor): Html {
  const { work, csrf, refusal } = view;
  const refusalFor = (subject: string) =>
    refusal?.subject === subject
      ? html`<p role="alert" class="error" data-testid="refusal" data-code="${refusal.code}">${refusal.message}</p>`
      : html``;
  const workRow = ({ work: w, snapshot }: ManagedWorkEntry) => {
    const href = w.kind === "campaign" ? `/campaigns/${w.slug}` : `/problems/${w.slug}`;
    const label = `${w.kind} ${w.slug}`;
    const options = Object.values(Visibility).map(
      (v) => html`<option value="${v}"${v === w.visibility ? html` selected` : html``}>${v}</option>`,
    );
    const fieldId = `visibility-${w.id}`;
    return html`<tr data-work="${w.slug}">
<td><a href="${href}">${w.title}</a><br><code class="muted">${w.slug}</code>${w.kind === "problem" && w.campaign_slug ? html`<br><span class="muted">in ${w.campaign_slug}</span>` : ""}</td>
<td data-testid="visibility">${w.visibility}${w.effective_visibility !== w.visibility ? html` (effective ${w.effective_visibility})` : ""}</td>
<td data-testid="status">${w.status}${w.archived_at ? html`<br><span class="muted">archived ${w.archived_at}</span>` : ""}</td>
<td>${w.kind === "problem" ? html`${String(w.current_revision_number)} <a href="/problems/${w.slug}">history</a>` : "-"}</td>
<td>
<form method="post" action="/work/visibility" class="inline">${csrf}
<input type="hidden" name="kind" value="${w.kind}"><input type="hidden" name="work" value="${w.id}"><input type="hidden" name="expected_snapshot" value="${snapshot}">
<label for="${fieldId}">Visibility of ${label}</label> <select id="${fieldId}" name="visibility">${options}</select>
<button type="submit" data-testid="set-visibility">Set</button>
</form>
${
  w.archived_at
    ? ""
    : html`<form method="post" action="/work/archive" class="inline">${csrf}
<input type="hidden" name="kind" value="${w.kind}"><input type="hidden" name="work" value="${w.id}">
<button type="submit" class="secondary" data-testid="archive" aria-label="Archive ${label}">Archive</button>
</form>`
}
<a href="/work/audit?${w.kind}=${w.slug}">history</a>
${
  w.visibility !== "listed" && !w.archived_at
    ? html`<form method="post" action="/work/request-listing" class="inline">${csrf}
<input type="hidden" name="kind" value="${w.kind}"><input type="hidden" name="work" value="${w.id}"><input type="hidden" name="expected_snapshot" value="${snapshot}">
<button type="submit" class="secondary" data-testid="request-listing" aria-label="Request listing of ${label}">Request listing</button>
</form>`
    : ""
}
<details><summary>Edit details</summary>
<form method="post" action="/work/details" class="review" data-testid="details-form">${csrf}
<input type="hidden" name="kind" value="${w.kind}"><input type="hidden" name="work" value="${w.id}"><input type="hidden" name="expected_snapshot" value="${snapshot}">
<label for="title-${w.id}">Title</label><input id="title-${w.id}" name="title" value="${w.title}" maxlength="200">
<label for="summary-${w.id}">Summary</label><input id="summary-${w.id}" name="summary" value="${w.summary ?? ""}" maxlength="1000">
${
  w.kind === "problem"
    ? html`<label for="priority-${w.id}">Priority weight (0 to 1)</label><input id="priority-${w.id}" name="priority_weight" type="number" min="0" max="1" step="0.01" value="${String(w.priority_weight ?? "")}">`
    : html`<label for="description-${w.id}">Description (Markdown)</label><textarea id="description-${w.id}" name="description_md" rows="4" maxlength="20000"></textarea>`
}
<p><button type="submit" data-testid="save-details">Save details</button></p>
</form></details>
${refusalFor(w.id)}
</td>
</tr>`;
  };
  const workTable = (rows: readonly ManagedWorkEntry[], caption: string, testId: string) =>
    rows.length === 0
      ? html`<p data-testid="no-${testId}">None yet.</p>`
      : html`<table data-testid="${testId}">
<caption class="muted">${caption}</caption>
<thead><tr><th scope="col">Work</th><th scope="col">Visibility</th><th scope="col">Status</th><th scope="col">Revisions</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows.map(workRow)}</tbody>
</table>`;
  const yankCell = (
    id: string,
    action: string,
    label: string,
    yank: MyWork["implementations"][number]["yank"],
  ) => html`${yankForm(id, action, label, yank)}${refusalFor(id)}`;
  const yankForm = (
    id: string,
    action: string,
    label: string,
    yank: MyWork["implementations"][number]["yank"],
  ) =>
    yank
      ? html`<p data-testid="yank-record">Yanked ${yank.yanked_at}${yank.yanked_by_user_id ? html` by <code>${yank.yanked_by_user_id}</code>` : ""}: ${yank.reason_md ?? ""}</p>`
      : html`<form method="post" action="${action}">${csrf}
<label for="reason-${id}">Reason to yank ${label}</label>
<textarea id="reason-${id}" name="reason_md" rows="2" required maxlength="10000"></textarea>
<button type="submit" data-testid="yank">Yank</button>
</form>`;
  const implementations = work.implementations.map(
    (i) => html`<tr data-implementation="${i.id}">
<td><code>${i.id}</code></td>
<td><code>${i.verifier_contract_id}</code> / ${i.stage_key}</td>
<td>${String(i.version_number)}</td>
<td data-testid="conformance-status">${i.conformance_status}${renderConformanceFailures(
      i.conformance_failures.map((f) => ({
        stage_key: f.stage_key,
        implementation: f.verifier_implementation_id,
        fixture: f.fixture_key,
        expected: f.expected_result,
        actual: f.actual_result,
        detail: f.detail,
        log_tail: f.log_tail,
      })),
      "conformance-failures",
    )}</td>
<td>${yankCell(i.id, `/work/implementations/${i.id}/yank`, `implementation ${i.id}`, i.yank)}</td>
</tr>`,
  );
  const protocols = work.review_protocols.map(
    (p) => html`<tr data-protocol="${p.id}">
<td><code>${p.id}</code></td>
<td>${p.slug}</td>
<td>${p.created_at}</td>
<td>${yankCell(p.id, `/work/review-protocols/${p.id}/yank`, `protocol ${p.slug}`, p.yank)}</td>
</tr>`,
  );
  const uploads = work.uploads.map(
    (u) => html`<tr data-upload="${u.id}">
<td><a href="/work/uploads/${u.id}">${u.id}</a></td>
<td data-testid="upload-state">${u.state}</td>
<td>${u.plan_hash ? html`<code>${u.plan_hash.slice(0, 19)}…</code>` : "-"}</td>
<td>${u.created_at}</td>
</tr>`,
  );
  const body = html`<h1>Authoring: my work</h1>
${view.notice && html`<p role="status" data-testid="notice">${view.notice}</p>`}
${refusal && html`<p role="alert" class="error" data-testid="page-refusal" data-code="${refusal.code}">Not done: ${refusal.message}</p>`}
${
  view.administrator
    ? html`<p data-testid="admin-links"><strong>Administration:</strong> <a href="/work/publication-requests">Publication requests</a> · <a href="/admin/access">Author access</a></p>`
    : ""
}
<h2 id="upload">Upload a package</h2>
<form method="post" action="/work/uploads" enctype="multipart/form-data" class="submit" data-testid="upload-form">${csrf}
<p><label for="package">Package ZIP (at most 64 MiB)</label><br><input type="file" id="package" name="package" accept=".zip,application/zip" required></p>
<p><button type="submit" data-testid="upload-package">Upload and validate</button></p>
</form>
<p class="muted">The upload is validated at once; its page shows the plan to publish. <code>svc upload</code> does the same from a terminal.</p>
<p class="muted">What you publish, as <code>get_work_management</code> shows it. A visibility change is refused if the work changed since this page was loaded; the history of every change is in <a href="/work/audit">the work history</a>. Packages kept in the service are your <a href="/work/drafts">drafts</a>. Publish packages with <code>svc draft</code> or <code>svc upload</code>.</p>
<h2>Campaigns</h2>
${workTable(work.campaigns, "Your campaigns", "campaigns")}
<h2>Problems</h2>
${workTable(work.problems, `Your problems, page ${view.page}`, "problems")}
<h2>Verifier implementations</h2>
${
  implementations.length === 0
    ? html`<p>None yet.</p>`
    : html`<table data-testid="implementations">
<caption class="muted">Implementations you published; a yank is written once</caption>
<thead><tr><th scope="col">Implementation</th><th scope="col">Contract / stage</th><th scope="col">Version</th><th scope="col">Conformance</th><th scope="col">Yank</th></tr></thead>
<tbody>${implementations}</tbody>
</table>`
}
<h2>Review protocols</h2>
${
  protocols.length === 0
    ? html`<p>None yet.</p>`
    : html`<table data-testid="protocols">
<caption class="muted">Protocols you published; a yank is written once</caption>
<thead><tr><th scope="col">Protocol</th><th scope="col">Slug</th><th scope="col">Published</th><th scope="col">Yank</th></tr></thead>
<tbody>${protocols}</tbody>
</table>`
}
<h2>Uploads</h2>
${
  uploads.length === 0
    ? html`<p>None yet.</p>`
    : html`<table data-testid="uploads">
<caption class="muted">Package uploads, newest first</caption>
<thead><tr><th scope="col">Upload</th><th scope="col">State</th><th scope="col">Plan hash</th><th scope="col">Requested</th></tr></thead>
<tbody>${uploads}</tbody>
</table>`
}
${
  view.page > 1 || work.more
    ? html`<p class="pager">${view.page > 1 ? html`<a href="/work?page=${String(view.page - 1)}" rel="prev">Previous page</a>` : ""}${work.more ? html`<a href="/work?page=${String(view.page + 1)}" rel="next" data-testid="next-problems">Next page</a>` : ""}</p>
<p class="muted">Each list shows 50 a page, newest first: page ${String(view.page)} holds rows ${String((view.page - 1) * 50 + 1)} to ${String(view.page * 50)} of every list.</p>`
    : ""
}`;
  return renderSitePage("Authoring", visitor, "work", body);
}
