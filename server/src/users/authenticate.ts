import type { Capability, Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { liveCapabilities } from "./live-capabilities.ts";
import { oauthAccessToken } from "./oauth-access-token.ts";
import type { Principal } from "./principal.ts";
import { type CachedPrincipal, principalCacheOf } from "./principal-cache.ts";
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
 * one is given (the MCP endpoint's URL for /mcp). A token verified a moment ago is answered from
 * the pool's PrincipalCache without a statement; any revocation empties that cache on every
 * replica as it commits (migration 036).
 */
export async function authenticate(
  sql: Sql,
  bearer: string | undefined,
  audience?: string,
): Promise<Principal | null> {
  const token = (bearer ?? "").replace(/^bearer\s+/i, "").trim();
  const operator = TOKEN_PATTERN.test(token);
  if (!operator && !OAUTH_TOKEN_PATTERN.test(token)) return null;
  const hash = tokenHash(token);
  const cache = principalCacheOf(sql);
  const key = `${hash} ${audience ?? ""}`;
  const cached = await cache?.get(key);
  if (cached !== undefined) return cached;
  const generation = cache?.begin() ?? 0;
  const found = operator ? await operatorToken(sql, hash) : await oauthAccessToken(sql, token, audience);
  if (found === null) return null;
  await found.touch();
  cache?.set(key, generation, found);
  return found.principal;
}

/** An operator-issued `svc_` token by its hash, unrevoked. */
async function operatorToken(sql: Sql, hash: string): Promise<CachedPrincipal | null> {
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
      expires_at: Date | null;
    }[]
  >`
    select u.id, u.handle, u.is_admin, u.created_at, t.scopes, ${liveCapabilities(sql)} as capabilities,
      t.id as token_id, t.last_used_at, t.expires_at
    from api_tokens t join users u on u.id = t.user_id
    where t.token_hash = ${hash} and t.revoked_at is null
      and (t.expires_at is null or t.expires_at > now())`;
  if (!row) return null;
  const { scopes, capabilities, token_id, last_used_at, expires_at, ...user } = row;
  let recorded = last_used_at?.getTime() ?? 0;
  return {
    principal: { user, scopes, capabilities, via: "operator_token" },
    ...(expires_at !== null && { expiresAt: expires_at }),
    // The settings page shows when a token was last used; to the minute is enough, so a busy token
    // costs one write a minute, not one per request.
    touch: async () => {
      if (Date.now() - recorded < LAST_USE_RESOLUTION_MS) return;
      recorded = Date.now();
      await sql`
        update api_tokens set last_used_at = now()
        where id = ${token_id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`;
    },
  };
}
