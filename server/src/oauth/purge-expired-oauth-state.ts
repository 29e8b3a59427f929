import type { Sql } from "../core/db/connect-sql.ts";

/**
 * Deletes the authorization server's expired rows: codes, tokens, sessions and interactions past
 * their expiry (an expired row is never read, so this only reclaims space; a rotated refresh
 * token keeps its row until its own expiry, which is what lets a reuse be detected), and
 * `svc login --mcp` codes a day after they expired, and dynamically registered clients that
 * hold no grant a week after registering (registration is open, so unused ones must not pile
 * up; a client that comes back registers again). Runs in the worker's minute sweep.
 */
export async function purgeExpiredOAuthState(sql: Sql): Promise<{ models: number; cliLogins: number }> {
  const expired = await sql`delete from oauth_models where expires_at < now()`;
  const unused = await sql`
    delete from oauth_models c
    where c.kind = 'Client' and c.created_at < now() - interval '7 days'
      and not exists (
        select 1 from oauth_models g where g.kind = 'Grant' and g.payload ->> 'clientId' = c.payload ->> 'client_id'
      )`;
  const models = { count: expired.count + unused.count };
  const cliLogins = await sql`delete from cli_logins where expires_at < now() - interval '1 day'`;
  return { models: models.count, cliLogins: cliLogins.count };
}
