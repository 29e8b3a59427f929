import type { Capability, Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { liveCapabilities } from "./live-capabilities.ts";
import { oauthAccessTokenPrincipal } from "./oauth-access-token.ts";
import type { Principal } from "./principal.ts";
import { TOKEN_PATTERN, tokenHash } from "./token-format.ts";

/** How fresh a token's recorded last use is kept. */
const LAST_USE_RESOLUTION_MS = 60_000;

/** oidc-provider's opaque tokens: 43 base64url characters; bounded before any lookup. */
const OAUTH_TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,128}$/;

/**
 * The principal a bearer token stands for, or null when the token is malformed, unknown or
 * revoked. Accepts the token alone or a whole `Authorization` value (`Bearer <token>`). The token
 * is looked up by its sha256, so the secret never reaches the database. A token that is not an
 * operator-issued `svc_` token may be an OAuth access token, accepted only for `audience` when
 * one is given (the MCP endpoint's URL for /mcp).
 */
export async function authenticate(
  sql: Sql,
  bearer: string | undefined,
  audience?: string,
): Promise<Principal | null> {
  const token = (bearer ?? "").replace(/^bearer\s+/i, "").trim();
  if (!TOKEN_PATTERN.test(token)) {
    return OAUTH_TOKEN_PATTERN.test(token) ? oauthAccessTokenPrincipal(sql, token, audience) : null;
  }
  const [row] = await sql<
    {
      id: string;
      handle: string;
      is_admin: boolean;
      created_at: Date;
      scopes: Scope[];
      capabilities: Capability[];
      token_id: string;
      last_used_at: Date | null;
    }[]
  >`
    select u.id, u.handle, u.is_admin, u.created_at, t.scopes, ${liveCapabilities(sql)} as capabilities,
      t.id as token_id, t.last_used_at
    from api_tokens t join users u on u.id = t.user_id
    where t.token_hash = ${tokenHash(token)} and t.revoked_at is null
      and (t.expires_at is null or t.expires_at > now())`;
  if (!row) return null;
  const { scopes, capabilities, token_id, last_used_at, ...user } = row;
  // The settings page shows when a token was last used; to the minute is enough, so a busy token
  // costs one write a minute, not one per request.
  if (last_used_at === null || Date.now() - last_used_at.getTime() >= LAST_USE_RESOLUTION_MS) {
    await sql`
      update api_tokens set last_used_at = now()
      where id = ${token_id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`;
  }
  return { user, scopes, capabilities, via: "operator_token" };
}
