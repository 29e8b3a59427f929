import type { OAuthGrantSummary } from "../../../oauth/oauth-grants.ts";
import { type Html, html } from "../html/html.ts";

/** Where the settings page's revoke buttons post: the grant id follows. */
export const REVOKE_OAUTH_GRANT_PATH = "/settings/oauth-clients";

/**
 * The settings page's section of OAuth clients: each client the user authorized, what it holds
 * for each resource, when it was authorized and last used, and a revoke button whose form carries
 * the session's CSRF token. Client names come from registrations and are escaped by `html`.
 */
export function renderOAuthClientsSection(grants: readonly OAuthGrantSummary[], csrfToken: string): Html {
  const rows = grants.map((grant) => {
    const scopes = Object.entries(grant.resources).map(
      ([resource, scope]) => html`<div><code>${scope}</code> on <code>${resource}</code></div>`,
    );
    return html`<tr data-testid="oauth-client">
<td><span data-testid="oauth-client-name">${grant.client_name}</span><br><code>${grant.client_id}</code></td>
<td>${scopes}</td>
<td>${grant.granted_at.toISOString()}</td>
<td data-testid="oauth-client-last-used">${grant.last_used_at ? grant.last_used_at.toISOString() : "never"}</td>
<td><form method="post" action="${REVOKE_OAUTH_GRANT_PATH}/${encodeURIComponent(grant.grant_id)}/revoke">
<input type="hidden" name="csrf_token" value="${csrfToken}">
<button type="submit" data-testid="oauth-client-revoke">Revoke</button>
</form></td>
</tr>`;
  });
  return html`<h2>OAuth clients</h2>
${
  grants.length === 0
    ? html`<p>No MCP client or browser login holds access to your account.</p>`
    : html`<table>
<tr><th>Client</th><th>Access</th><th>Authorized</th><th>Last used</th><th></th></tr>
${rows}
</table>`
}`;
}
