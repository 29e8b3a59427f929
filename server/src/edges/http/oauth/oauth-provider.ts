import { Capability, Scope } from "@svc/schemas";
import { errors, Provider } from "oidc-provider";
import { guardedFetch } from "../../../core/http/guarded-fetch.ts";
import type { Services } from "../../../core/services/services.ts";
import { oauthAdapter } from "../../../oauth/oauth-adapter.ts";
import { oauthKeys } from "./oauth-keys.ts";

/** Where the authorization server's endpoints are mounted. */
export const OAUTH_PREFIX = "/oauth";

/** The resources a token may be bound to (RFC 8707): the MCP endpoint, or the HTTP API alone. */
export function oauthResources(issuer: string): string[] {
  return [`${issuer}/mcp`, `${issuer}/api`];
}

/** Every scope a grant may hold: read/contribute, and the capabilities added from the user's grants. */
export const OAUTH_SCOPES: readonly string[] = [...Object.values(Scope), ...Object.values(Capability)];

/** Token lifetimes in seconds (spec 5.9 leaves them to the service; docs/security.md). */
const TTL = {
  AccessToken: 60 * 60,
  AuthorizationCode: 60,
  RefreshToken: 30 * 24 * 60 * 60,
  Grant: 365 * 24 * 60 * 60,
  Interaction: 60 * 60,
  Session: 14 * 24 * 60 * 60,
};

/** The names a plain-http redirect URI may use: loopback only (OAuth 2.1 section 2.3.1, RFC 8252 7.3). */
const LOOPBACK_REDIRECT_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Refuses a client whose redirect URIs include plain http to anything but loopback. */
function refuseRemotePlainHttp(_ctx: unknown, key: string, value: unknown): void {
  if (key !== "redirect_uris" || !Array.isArray(value)) return;
  for (const uri of value) {
    const parsed = typeof uri === "string" ? URL.parse(uri) : null;
    if (parsed?.protocol === "http:" && !LOOPBACK_REDIRECT_HOSTS.has(parsed.hostname)) {
      throw new errors.InvalidClientMetadata!(
        `redirect_uris: ${uri} uses plain http on a host that is not loopback; use https, or http://127.0.0.1, http://[::1] or http://localhost`,
      );
    }
  }
}

/**
 * The OAuth 2.1 authorization server (spec 5), built with oidc-provider: a certified,
 * standards-tested implementation of the authorization code flow with PKCE (S256 only), Dynamic
 * Client Registration (RFC 7591), Client ID Metadata Documents, resource indicators (RFC 8707),
 * refresh token rotation with reuse detection and revocation (RFC 7009). Its state lives in
 * PostgreSQL (oauth_models), its keys derive from the signing secret, so any replica serves any
 * step. `issuer` is the service's public base URL; endpoints live under /oauth.
 */
export function createOAuthProvider(services: Services, issuer: string): Provider {
  const { sql } = services;
  const keys = oauthKeys(services.signingSecret);
  const resources = oauthResources(issuer);
  const provider = new Provider(issuer, {
    adapter: (name: string) => oauthAdapter(sql, name),
    jwks: keys.jwks,
    // Signed, HttpOnly and SameSite=Lax: a cross-site POST to the consent form carries none.
    cookies: {
      keys: keys.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: "lax" },
      short: { signed: true, httpOnly: true, sameSite: "lax" },
    },
    // Listed for registration's `scope` check; what a token carries is the resource server's
    // (getResourceServerInfo) as consent granted it.
    scopes: ["openid", "offline_access", ...OAUTH_SCOPES],
    // Also checks the standard `redirect_uris` (the library runs the validator on listed properties).
    extraClientMetadata: { properties: ["redirect_uris"], validator: refuseRemotePlainHttp },
    claims: { openid: ["sub"] },
    responseTypes: ["code"],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      id_token_signed_response_alg: "EdDSA",
    },
    ttl: TTL,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: true },
      // A client revokes only its own tokens (a public client's request for another's is ignored).
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) =>
          token.clientId === client.clientId,
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: "draft-02",
        cacheDuration: { min: 60, max: 24 * 60 * 60 },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf ?? resources[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (!resources.includes(resource)) {
            throw new errors.InvalidTarget!(`resource must be one of ${resources.join(", ")}`);
          }
          return {
            scope: OAUTH_SCOPES.join(" "),
            audience: resource,
            accessTokenFormat: "opaque",
            accessTokenTTL: TTL.AccessToken,
          };
        },
      },
    },
    // A client that may use refresh tokens gets one; the `offline_access` dance is OpenID's, not MCP's.
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed("refresh_token"),
    // Every refresh rotates; the library revokes the whole grant when a rotated token comes back.
    rotateRefreshToken: () => true,
    // Every authorization goes through the consent interaction, which checks who is signed in to
    // the service now: a grant is never reused silently from the provider's own session cookie.
    loadExistingGrant: async (ctx: {
      oidc: { result?: { consent?: { grantId?: string } }; provider: Provider };
    }) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // Tokens outlive the browser session that approved them; revocation ends them.
    expiresWithSession: () => false,
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `${OAUTH_PREFIX}/interaction/${interaction.uid}`,
    },
    findAccount: async (_ctx: unknown, sub: string) => {
      const [user] = await sql<{ id: string }[]>`select id from users where id = ${sub}`;
      return user ? { accountId: user.id, claims: () => ({ sub: user.id }) } : undefined;
    },
    // Client metadata documents (and any JWKS or sector URI) are fetched only from public addresses,
    // decided before connecting; tests with SVC_OAUTH_ALLOW_LOOPBACK_CLIENTS=1 reach loopback only
    // (a self-signed test server).
    fetch: services.allowLoopbackOAuthClients
      ? guardedFetch({ loopbackOnly: true }, { rejectUnauthorized: false })
      : guardedFetch(),
    // Errors at the browser-facing endpoints: a plain page, never the library's debug output.
    renderError: (
      ctx: { type: string; body: string },
      out: { error: string; error_description?: string },
    ) => {
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = `${out.error}: ${out.error_description ?? "the authorization request was refused"}`;
    },
  });
  // Issuer, endpoints and redirects use the public base URL even behind a TLS-terminating proxy.
  provider.proxy = true;
  provider.on("server_error", (_ctx, error) => services.log.error({ err: error }, "OAuth server error"));
  return provider;
}
