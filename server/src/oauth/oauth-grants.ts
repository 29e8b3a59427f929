import type { Sql } from "../core/db/connect-sql.ts";
import { forgetPrincipals } from "../users/principal-cache.ts";

/** One client the user has authorized, as the settings page lists it. */
export interface OAuthGrantSummary {
  grant_id: string;
  client_id: string;
  /** The client's registered or published name, else its id. */
  client_name: string;
  /** What the grant holds, per resource: read/contribute and the capabilities added at consent. */
  resources: Record<string, string>;
  granted_at: Date;
  /** When one of its access tokens was last used (to the minute), null if never. */
  last_used_at: Date | null;
}

/**
 * The OAuth grants `userId` has given, newest first: one per client they approved. Clients that
 * registered dynamically carry their name in their stored record; a client ID metadata document's
 * client is named by its URL (the document is not stored).
 */
export async function listOAuthGrants(sql: Sql, userId: string): Promise<OAuthGrantSummary[]> {
  const rows = await sql<
    {
      grant_id: string;
      client_id: string;
      client_name: string | null;
      resources: Record<string, string> | null;
      granted_at: Date;
      last_used_at: Date | null;
    }[]
  >`
    select g.payload ->> 'jti' as grant_id, g.payload ->> 'clientId' as client_id,
      c.payload ->> 'client_name' as client_name, g.payload -> 'resources' as resources,
      g.created_at as granted_at, g.last_used_at
    from oauth_models g
    left join oauth_models c on c.kind = 'Client'
      and c.id_hash = encode(sha256(convert_to(g.payload ->> 'clientId', 'UTF8')), 'hex')
    where g.kind = 'Grant' and g.account_id = ${userId} and (g.expires_at is null or g.expires_at > now())
    order by g.created_at desc`;
  return rows.map((row) => ({
    ...row,
    client_name: row.client_name ?? row.client_id,
    resources: row.resources ?? {},
  }));
}

/**
 * Revokes one of the user's grants: the grant and every code, access and refresh token issued
 * under it. True when the user held it; another user's grant id changes nothing.
 */
export async function revokeOAuthGrant(sql: Sql, userId: string, grantId: string): Promise<boolean> {
  const [grant] = await sql<{ account_id: string }[]>`
    select account_id from oauth_models
    where kind = 'Grant' and id_hash = encode(sha256(convert_to(${grantId}::text, 'UTF8')), 'hex')`;
  if (!grant || grant.account_id !== userId) return false;
  await sql`
    delete from oauth_models
    where grant_id = ${grantId}
      or (kind = 'Grant' and id_hash = encode(sha256(convert_to(${grantId}::text, 'UTF8')), 'hex'))`;
  forgetPrincipals(sql);
  return true;
}
