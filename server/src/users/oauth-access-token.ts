import { createHash } from "node:crypto";
import { Capability, Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { CachedPrincipal } from "./principal-cache.ts";

/**
 * The principal an OAuth access token stands for (issued by the authorization server, stored
 * hashed in oauth_models), or null when it is unknown, expired, revoked or bound to another
 * resource than `audience` (RFC 8707; no audience: any of the service's). Its scopes are the
 * token's read/contribute; its capabilities are those its grant recorded at consent that the user
 * still holds. Tokens are
 * stored by their sha256 (server/src/oauth/oauth-adapter.ts).
 */
export async function oauthAccessToken(
  sql: Sql,
  token: string,
  audience: string | undefined,
): Promise<CachedPrincipal | null> {
  const [row] = await sql<
    {
      id: string;
      handle: string;
      is_admin: boolean;
      created_at: Date;
      scope: string | null;
      aud: string | null;
      grant_scope: string | null;
      grant_hash: string;
      live: Capability[];
      expires_at: Date;
    }[]
  >`
    select u.id, u.handle, u.is_admin, u.created_at, t.payload ->> 'scope' as scope, t.payload ->> 'aud' as aud,
      g.payload -> 'resources' ->> (t.payload ->> 'aud') as grant_scope, g.id_hash as grant_hash, t.expires_at,
      array(select c.capability from user_capabilities c where c.user_id = u.id and c.revoked_at is null) as live
    from oauth_models t
    join users u on u.id = t.account_id
    join oauth_models g on g.kind = 'Grant'
      and g.id_hash = encode(sha256(convert_to(t.grant_id, 'UTF8')), 'hex')
      and (g.expires_at is null or g.expires_at > now())
    where t.kind = 'AccessToken' and t.id_hash = ${createHash("sha256").update(token).digest("hex")} and t.expires_at > now()`;
  if (!row) return null;
  if (audience !== undefined && row.aud !== audience) return null;
  const { scope, aud: _aud, grant_scope, grant_hash, live, expires_at, ...user } = row;
  const tokenScopes = (scope ?? "").split(" ");
  const grantScopes = (grant_scope ?? "").split(" ");
  return {
    principal: {
      user,
      via: "oauth_token",
      scopes: Object.values(Scope).filter((s) => tokenScopes.includes(s)),
      // What the grant recorded at consent, intersected with what the user still holds (a revocation
      // applies on the next request, whatever token the user holds).
      capabilities: Object.values(Capability).filter((c) => grantScopes.includes(c) && live.includes(c)),
    },
    expiresAt: expires_at,
    // The settings page shows when a client last used its grant; to the minute is enough.
    touch: async () => {
      await sql`
        update oauth_models set last_used_at = now()
        where kind = 'Grant' and id_hash = ${grant_hash} and (last_used_at is null or last_used_at < now() - interval '1 minute')`;
    },
  };
}
