import type { WorkAuditLine } from "../../../work-audit/list-work-audit.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/** What the audit page shows: one page of entries, what they are filtered to, and the next page's link. */
export interface WorkAuditView {
  entries: readonly WorkAuditLine[];
  /** "draft wdr_...", "campaign x", or null for everything the viewer may see. */
  scope: string | null;
  /** The address of the next (older) page, or null on the last one. */
  nextHref: string | null;
}

/**
 * `GET /work/audit`: the append-only work history (spec 6.4), newest first, as a table of who
 * did what, through which upload and plan, and which revisions it created. Every value is
 * escaped by `html`.
 */
export function renderWorkAuditPage(view: WorkAuditView, visitor: SiteVisitor): Html {
  const rows = view.entries.map(
    (e) => html`<tr data-testid="audit-entry">
<td><time datetime="${e.occurred_at}">${e.occurred_at.replace("T", " ").replace(/\.\d+Z$/, " UTC")}</time></td>
<td data-testid="actor">${e.actor_handle}</td>
<td data-testid="action"><code>${e.action}</code></td>
<td>${e.subject_kind} <code>${e.subject_id}</code></td>
<td>${e.upload_id ? html`<code>${e.upload_id}</code>` : "-"}</td>
<td>${e.plan_hash ? html`<code>${e.plan_hash.slice(0, 19)}…</code>` : "-"}</td>
<td>${e.revisions_created.length > 0 ? e.revisions_created.map((r) => html`<code>${r.problem_revision_id}</code> (${r.revision_number}) `) : "-"}</td>
</tr>`,
  );
  return renderSitePage(
    "Work history",
    visitor,
    "work",
    html`<h1>Work history</h1>
<p>${view.scope ? html`Entries on ${view.scope}` : "Entries on your work and drafts"}, newest first. The history is append-only.</p>
${
  rows.length === 0
    ? html`<p data-testid="empty">No entries.</p>`
    : html`<table>
<thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Subject</th><th scope="col">Upload</th><th scope="col">Plan hash</th><th scope="col">Revisions created</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${view.nextHref ? html`<p><a href="${view.nextHref}" data-testid="older">Older entries</a></p>` : ""}`,
  );
}
