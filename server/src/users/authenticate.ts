import type { Capability, Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { liveCapabilities } from "./live-capabilities.ts";
import { oauthAccessTokenPrincipal } from "./oauth-access-token.ts";
import type { Principal } from "./principal.ts";
import { TOKEN_PATTERN, tokenHash } from "./token-format.ts";

/**
 * The principal a bearer token stands for, or null when the token is malformed, unknown or
 * revoked. Accepts the token alone or a whole `Authorization` value (`Bearer <token>`). The token
 * is looked up by its sha256, so the secret never reaches the database. A token that is not an
 * operator-issued `svc_` token may be an OAuth access token, accepted only for `audience` when
 * one is given (the MCP endpoint's URL for /mcp).
 */
/** oidc-provider's opaque tokens: 43 base64url characters; bounded before any lookup. */
const OAUTH_TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,128}$/;

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
    }[]
  >`
    select u.id, u.handle, u.is_admin, u.created_at, t.scopes, ${liveCapabilities(sql)} as capabilities
    from api_tokens t join users u on u.id = t.user_id
    where t.token_hash = ${tokenHash(token)} and t.revoked_at is null`;
  if (!row) return null;
  const { scopes, capabilities, ...user } = row;
  return { user, scopes, capabilities };
}
