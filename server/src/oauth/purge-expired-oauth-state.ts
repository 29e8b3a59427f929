import type { Sql } from "../core/db/connect-sql.ts";

/**
 * Deletes the authorization server's expired rows: codes, tokens, sessions and interactions past
 * their expiry (an expired row is never read, so this only reclaims space; a rotated refresh
 * token keeps its row until its own expiry, which is what lets a reuse be detected), and
 * `svc login --mcp` codes a day after they expired. Runs in the worker's minute sweep.
 */
export async function purgeExpiredOAuthState(sql: Sql): Promise<{ models: number; cliLogins: number }> {
  const models = await sql`delete from oauth_models where expires_at < now()`;
  const cliLogins = await sql`delete from cli_logins where expires_at < now() - interval '1 day'`;
  return { models: models.count, cliLogins: cliLogins.count };
}
