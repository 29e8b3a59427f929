import type { OAuthGrantSummary } from "../../../oauth/oauth-grants.ts";
import type { SessionSummary } from "../../../sessions/sessions.ts";
import type { IssuedToken } from "../../../users/issue-token.ts";
import type { TokenSummary } from "../../../users/list-tokens.ts";
import type { Whoami } from "../../../users/whoami.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/** Where the settings page's forms post; an id and `/revoke` follow the first three. */
export const SETTINGS_PATHS = {
  token: "/settings/tokens",
  oauthClient: "/settings/oauth-clients",
  session: "/settings/sessions",
} as const;

/** What the settings page shows: the signed-in user, their access and everything that signs in as them. */
export interface SettingsView {
  whoami: Whoami;
  tokens: readonly TokenSummary[];
  oauthClients: readonly OAuthGrantSummary[];
  sessions: readonly SessionSummary[];
  /** This browser's session, marked in the list. */
  currentSessionId: string;
  /** The hidden CSRF field every form carries. */
  csrf: Html;
  /** A one-line notice after an action ("Revoked ..."), or null. */
  notice: string | null;
  /** A token just created: its secret is shown this once. */
  created?: IssuedToken | null;
}

/** The scopes a person may give their own token. */
export const TOKEN_SCOPES = { read: ["read"], contribute: ["read", "contribute"] } as const;
/** How long a person's own token lives, in days (null: until revoked). */
export const TOKEN_LIFETIMES = { "7d": 7, "30d": 30, "90d": 90, "365d": 365, never: null } as const;

/**
 * `GET /settings`: who you are, your roles and capabilities with who granted them, your
 * organizations, and every credential that acts as you (command-line tokens, OAuth clients,
 * operator-issued tokens, browser sessions), each with its last use and a revoke button.
 * Names that clients chose are escaped by `html` like everything else.
 */
export function renderSettingsPage(view: SettingsView, visitor: SiteVisitor): Html {
  const { whoami } = view;
  const cliTokens = view.tokens.filter((t) => t.issued_to !== null);
  const ownTokens = view.tokens.filter((t) => t.issued_to === null && t.name !== null);
  const operatorTokens = view.tokens.filter((t) => t.issued_to === null && t.name === null);
  return renderSitePage(
    "Settings",
    visitor,
    "settings",
    html`<h1>Settings</h1>
${view.notice && html`<p class="note" role="status" data-testid="notice">${view.notice}</p>`}
<p>Signed in as <strong data-testid="handle">${whoami.user.handle}</strong> (<code>${whoami.user.id}</code>).</p>
<form method="post" action="/sign-out" class="inline">${view.csrf}<button type="submit" data-testid="sign-out">Sign out</button></form>
<form method="post" action="/sign-out/everywhere" class="inline">${view.csrf}<button type="submit" data-testid="sign-out-everywhere">Sign out everywhere</button></form>
${renderAccess(whoami)}
${renderMemberships(whoami)}
<section aria-labelledby="credentials">
<h2 id="credentials">Credentials</h2>
<p class="note">Everything below acts as you. Revoking one takes effect on its next request.</p>
${renderNewToken(view.csrf, view.created ?? null)}
${renderTokens("Your tokens", "own-tokens", ownTokens, view.csrf, "You have made no token here.")}
${renderTokens("Command lines (svc login --mcp)", "cli-tokens", cliTokens, view.csrf, "No command line holds a token of yours.")}
${renderOAuthClients(view.oauthClients, view.csrf)}
${renderTokens("Operator-issued tokens", "operator-tokens", operatorTokens, view.csrf, "No operator-issued token of yours is live.")}
${renderSessions(view.sessions, view.currentSessionId, view.csrf)}
</section>`,
  );
}

function renderAccess(whoami: Whoami): Html {
  const grants = whoami.grants.map(
    (grant) => html`<tr data-testid="access-grant">
<td><code>${grant.access}</code></td>
<td>${grant.granted_by_handle ?? "an operator"}, ${when(grant.granted_at)}</td>
<td>${grant.revoked_at ? html`revoked by ${grant.revoked_by_handle ?? "an operator"}, ${when(grant.revoked_at)}` : "held"}</td>
</tr>`,
  );
  return html`<section aria-labelledby="access">
<h2 id="access">Access</h2>
<p>Roles: <span data-testid="roles">${whoami.roles.join(", ")}</span>.
Capabilities: <span data-testid="capabilities">${whoami.capabilities.length > 0 ? whoami.capabilities.join(", ") : "none"}</span>.</p>
${
  grants.length === 0
    ? html`<p class="note">No capability or role was ever granted to you: you are a contributor.</p>`
    : html`<table>
<caption>Every grant and revocation</caption>
<thead><tr><th scope="col">Access</th><th scope="col">Granted</th><th scope="col">Now</th></tr></thead>
<tbody>${grants}</tbody>
</table>`
}
</section>`;
}

function renderMemberships(whoami: Whoami): Html {
  const rows = whoami.memberships.map(
    (m) =>
      html`<tr data-testid="membership"><td>${m.organization_name} (<code>${m.organization_slug}</code>)</td><td>${m.role}</td><td>${when(m.joined_at)}</td></tr>`,
  );
  const invitations = whoami.invitations.map(
    (i) =>
      html`<li data-testid="invitation">${i.organization_name} (<code>${i.organization_slug}</code>) invites you as ${i.role} (from ${i.invited_by_handle})</li>`,
  );
  return html`<section aria-labelledby="organizations">
<h2 id="organizations">Organizations</h2>
${
  rows.length === 0
    ? html`<p class="note">You belong to no organization.</p>`
    : html`<table>
<thead><tr><th scope="col">Organization</th><th scope="col">Role</th><th scope="col">Joined</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${invitations.length > 0 && html`<p>Open invitations (accept with <code>accept_organization_invitation</code>):</p><ul>${invitations}</ul>`}
</section>`;
}

function renderTokens(
  title: string,
  testId: string,
  tokens: readonly TokenSummary[],
  csrf: Html,
  none: string,
): Html {
  const rows = tokens.map(
    (token) => html`<tr data-testid="token">
<td>${token.name && html`<strong data-testid="token-name">${token.name}</strong><br>`}<code data-testid="token-prefix">${token.prefix}</code>${token.issued_to && html`<br>${token.issued_to}`}${token.expires_at && html`<br><span class="muted">expires ${when(token.expires_at)}</span>`}</td>
<td>${[...token.scopes, ...token.capabilities].join(" ")}</td>
<td>${when(token.created_at)}</td>
<td data-testid="token-last-used">${token.last_used_at ? when(token.last_used_at) : "never"}</td>
<td>${revokeForm(`${SETTINGS_PATHS.token}/${encodeURIComponent(token.id)}/revoke`, csrf, `Revoke ${token.prefix}`)}</td>
</tr>`,
  );
  return html`<h3>${title}</h3>
${
  rows.length === 0
    ? html`<p class="note" data-testid="${testId}-none">${none}</p>`
    : html`<table data-testid="${testId}">
<thead><tr><th scope="col">Token</th><th scope="col">Access</th><th scope="col">Issued</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}`;
}

function renderOAuthClients(grants: readonly OAuthGrantSummary[], csrf: Html): Html {
  const rows = grants.map((grant) => {
    const access = Object.entries(grant.resources).map(
      ([resource, scope]) => html`<div><code>${scope}</code> on <code>${resource}</code></div>`,
    );
    return html`<tr data-testid="oauth-client">
<td><span data-testid="oauth-client-name">${grant.client_name}</span><br><code>${grant.client_id}</code></td>
<td>${access}</td>
<td>${when(grant.granted_at)}</td>
<td data-testid="oauth-client-last-used">${grant.last_used_at ? when(grant.last_used_at) : "never"}</td>
<td>${revokeForm(`${SETTINGS_PATHS.oauthClient}/${encodeURIComponent(grant.grant_id)}/revoke`, csrf, `Revoke ${grant.client_name}`)}</td>
</tr>`;
  });
  return html`<h3>OAuth clients (MCP clients, svc login)</h3>
${
  rows.length === 0
    ? html`<p class="note" data-testid="oauth-clients-none">No MCP client or browser login holds access to your account.</p>`
    : html`<table data-testid="oauth-clients">
<thead><tr><th scope="col">Client</th><th scope="col">Access</th><th scope="col">Authorized</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}`;
}

function renderSessions(sessions: readonly SessionSummary[], currentId: string, csrf: Html): Html {
  const rows = sessions.map(
    (session) => html`<tr data-testid="session">
<td>${session.user_agent ?? "unknown browser"}${session.id === currentId && html` <strong data-testid="this-session">(this browser)</strong>`}</td>
<td>${when(session.created_at)}</td>
<td>${when(session.last_seen_at)}</td>
<td>${session.id !== currentId && revokeForm(`${SETTINGS_PATHS.session}/${encodeURIComponent(session.id)}/revoke`, csrf, "Sign out this browser")}</td>
</tr>`,
  );
  return html`<h3>Browsers signed in</h3>
<table data-testid="sessions">
<thead><tr><th scope="col">Browser</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col"><span class="visually-hidden">Sign out</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

function revokeForm(action: string, csrf: Html, label: string): Html {
  return html`<form method="post" action="${action}" class="inline">${csrf}<button type="submit" aria-label="${label}" data-testid="revoke">${label.startsWith("Sign out") ? "Sign out" : "Revoke"}</button></form>`;
}

/** A time as people read it in a table: UTC to the minute. */
function when(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * The form that makes a token of your own (name, scope, lifetime), and once made, its secret in a
 * read-only field to select and copy (no script, so no copy button), with the lines that use it.
 */
function renderNewToken(csrf: Html, created: IssuedToken | null): Html {
  const shown =
    created &&
    html`<div class="note" role="status" data-testid="new-token">
<p><strong>Your new token.</strong> Copy it now: it is shown this once, and only its prefix is kept.</p>
<p><label for="new-token-secret">Token</label><br><input id="new-token-secret" class="snippet" readonly value="${created.token}" size="48" data-testid="new-token-secret"></p>
<p class="muted">Use it as <code>Authorization: Bearer ...</code> on <code>/api</code> and <code>/mcp</code>, or store it with <code>svc login --token ...</code>.</p>
</div>`;
  return html`<h3 id="new-token">Make a token</h3>
${shown}
<form method="post" action="${SETTINGS_PATHS.token}" class="review" data-testid="token-form">${csrf}
<label for="token-name">Name</label>
<input id="token-name" name="name" required maxlength="100" placeholder="laptop agent">
<label for="token-scope">Scope</label>
<select id="token-scope" name="scope"><option value="read">read</option><option value="contribute" selected>read and contribute</option></select>
<label for="token-expires">Expires</label>
<select id="token-expires" name="expires"><option value="7d">in 7 days</option><option value="30d" selected>in 30 days</option><option value="90d">in 90 days</option><option value="365d">in a year</option><option value="never">never (until revoked)</option></select>
<p><button type="submit" data-testid="create-token">Make the token</button></p>
</form>`;
}
