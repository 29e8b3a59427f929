import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { forgetPrincipals } from "./principal-cache.ts";
import { TOKEN_PREFIX_LENGTH, tokenPrefix } from "./token-format.ts";

/**
 * Revokes the token named by its public prefix (`svc_` and 8 characters; a longer string, such
 * as the whole token, is cut to its prefix). Revocation is write-once: revoking a revoked token
 * changes nothing and returns the first revocation time. not_found when no token has the prefix.
 */
export async function revokeToken(sql: Sql, prefix: string): Promise<{ prefix: string; revoked_at: Date }> {
  if (!prefix.startsWith("svc_") || prefix.length < TOKEN_PREFIX_LENGTH) {
    throw new ServiceError(
      "invalid_input",
      `"${prefix}" is not a token prefix: give the first ${TOKEN_PREFIX_LENGTH} characters of the token (svc_ and 8 more)`,
      { field: "prefix" },
    );
  }
  const wanted = tokenPrefix(prefix);
  const [row] = await sql<{ prefix: string; revoked_at: Date }[]>`
    with revoked as (
      update api_tokens set revoked_at = now()
      where prefix = ${wanted} and revoked_at is null
      returning prefix, revoked_at
    )
    select prefix, revoked_at from revoked
    union all
    select prefix, revoked_at from api_tokens where prefix = ${wanted} and revoked_at is not null`;
  if (!row) throw new ServiceError("not_found", `no token has the prefix ${wanted}`, { prefix: wanted });
  forgetPrincipals(sql);
  return row;
}

/**
 * Revokes one of the user's own tokens by its id (the settings page's revoke button). True when
 * the user held it unrevoked; another user's token, or an unknown id, changes nothing.
 */
export async function revokeOwnToken(sql: Sql, userId: string, tokenId: string): Promise<boolean> {
  const rows = await sql`
    update api_tokens set revoked_at = now()
    where id = ${tokenId} and user_id = ${userId} and revoked_at is null
    returning id`;
  forgetPrincipals(sql);
  return rows.length > 0;
}
