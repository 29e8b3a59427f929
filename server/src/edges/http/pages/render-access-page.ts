import type { AccessHolder } from "../../../users/list-access-holders.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/** The access an administrator grants from the page, with what each lets a person do. */
export const PAGE_ACCESS = {
  author: "author: publish private and unlisted work",
  trusted_author: "trusted author: publish listed work without a publication request",
} as const;

/**
 * `GET /admin/access` (administrators): who holds author and trusted-author access, each with a
 * Revoke button, and a form granting either to a handle (as `svc-server user grant` does, with the
 * administrator recorded as grantor).
 */
export function renderAccessPage(
  view: { holders: readonly AccessHolder[]; csrf: Html; notice: string | null },
  visitor: SiteVisitor,
): Html {
  const rows = view.holders.map(
    (h) => html`<tr data-holder="${h.handle}" data-access="${h.access}">
<td data-label="Person">${h.handle}</td><td data-label="Access">${h.access}</td>
<td data-label="Granted">${h.granted_at.toISOString().slice(0, 16).replace("T", " ")} UTC by ${h.granted_by_handle ?? "an operator"}</td>
<td><form method="post" action="/admin/access/revoke" class="inline">${view.csrf}
<input type="hidden" name="handle" value="${h.handle}"><input type="hidden" name="access" value="${h.access}">
<button type="submit" class="secondary" data-testid="revoke-access" aria-label="Revoke ${h.access} from ${h.handle}">Revoke</button></form></td>
</tr>`,
  );
  const body = html`<p class="muted breadcrumbs"><a href="/work">My work</a> / administration / access</p>
<h1>Author access</h1>
${view.notice && html`<p role="status" data-testid="notice">${view.notice}</p>`}
<form method="post" action="/admin/access/grant" class="review" data-testid="grant-form">${view.csrf}
<label for="grant-handle">Handle</label><input id="grant-handle" name="handle" required maxlength="64">
<label for="grant-access">Access</label>
<select id="grant-access" name="access">${Object.entries(PAGE_ACCESS).map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select>
<p><button type="submit" data-testid="grant-access">Grant</button></p>
</form>
<h2>Who holds it</h2>
${
  rows.length === 0
    ? html`<p>Nobody.</p>`
    : html`<table data-testid="holders"><thead><tr><th scope="col">Person</th><th scope="col">Access</th><th scope="col">Granted</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>${rows}</tbody></table>`
}
<p class="muted">A revoked grant stays recorded with who revoked it and when; tokens already issued keep only the access their user still holds.</p>`;
  return renderSitePage("Author access", visitor, "work", body);
}
