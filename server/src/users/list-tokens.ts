import type { Capability, Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

/** A live bearer token as its owner's settings page lists it: never the secret, only the prefix. */
export interface TokenSummary {
  id: string;
  /** `svc_` and 8 characters: what `svc-server token revoke` takes. */
  prefix: string;
  scopes: Scope[];
  capabilities: Capability[];
  /** The command line a `svc login --mcp` token went to; null for an operator-issued token. */
  issued_to: string | null;
  /** The name its owner gave it on the settings page; null for other tokens. */
  name: string | null;
  /** When it stops working; null for never. */
  expires_at: Date | null;
  created_at: Date;
  /** When it last authenticated a request (to the minute), null if never. */
  last_used_at: Date | null;
}

/** The user's live bearer tokens (not revoked, not expired), newest first. */
export async function listTokens(sql: Sql, userId: string): Promise<TokenSummary[]> {
  const rows = await sql<TokenSummary[]>`
    select id, prefix, scopes, capabilities, issued_to, name, expires_at, created_at, last_used_at from api_tokens
    where user_id = ${userId} and revoked_at is null and (expires_at is null or expires_at > now())
    order by created_at desc, id`;
  return [...rows];
}
