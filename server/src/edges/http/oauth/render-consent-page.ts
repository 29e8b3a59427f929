import { type Html, html } from "../html/html.ts";
import { renderSitePage } from "../html/render-site-page.ts";

/** What the consent page shows about one authorization request. */
export interface ConsentView {
  uid: string;
  handle: string;
  clientName: string;
  clientId: string;
  redirectUri: string;
  resource: string;
  /** read/contribute as requested, then the capabilities the user holds. */
  scopes: readonly string[];
  /** The signed-in session's CSRF token, carried by the form (none for a bearer caller). */
  csrfToken: string | undefined;
}

const SCOPE_TEXT: Readonly<Record<string, string>> = {
  read: "read every problem, campaign and result you can see",
  contribute: "do work and review as you: start attempts, submit, claim review seats",
  author: "publish problems and campaigns as you, and archive them",
  custom_verifier: "name public digest-pinned images as sandbox checkers",
};

/**
 * The consent page of the authorization server: who asks (the client's name and id, where the
 * answer goes), for which resource, and each scope the token would carry. With `author` it says
 * that publications are immutable (spec 5.3). Every value is the client's or the user's and is
 * escaped by `html`.
 */
export function renderConsentPage(view: ConsentView): Html {
  const scopes = view.scopes.map(
    (scope) => html`<li data-testid="scope"><code>${scope}</code>: ${SCOPE_TEXT[scope] ?? scope}</li>`,
  );
  const immutable =
    view.scopes.includes("author") &&
    html`<p data-testid="immutable"><strong>Publications are immutable:</strong> a problem revision this client publishes as you cannot be edited or deleted afterwards, only archived or superseded.</p>`;
  const csrf = view.csrfToken && html`<input type="hidden" name="csrf_token" value="${view.csrfToken}">`;
  const body = html`<h1>Authorize <span data-testid="client-name">${view.clientName}</span></h1>
<p>Signed in as <strong data-testid="handle">${view.handle}</strong>.</p>
<table><tbody>
<tr><th>Client</th><td><code data-testid="client-id">${view.clientId}</code></td></tr>
<tr><th>Returns to</th><td><code>${view.redirectUri}</code></td></tr>
<tr><th>Resource</th><td><code>${view.resource}</code></td></tr>
</tbody></table>
<h2>It will be able to</h2>
<ul>
${scopes}
</ul>
${immutable}
<form method="post" action="/oauth/interaction/${view.uid}">
${csrf}
<button type="submit" name="decision" value="approve" data-testid="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary" data-testid="deny">Deny</button>
</form>`;
  return renderSitePage(
    `Authorize ${view.clientName}`,
    { handle: view.handle, path: `/oauth/interaction/${view.uid}` },
    "none",
    body,
  );
}
