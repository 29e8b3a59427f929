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
  created_at: Date;
  /** When it last authenticated a request (to the minute), null if never. */
  last_used_at: Date | null;
}

/** The user's unrevoked bearer tokens, newest first. */
export async function listTokens(sql: Sql, userId: string): Promise<TokenSummary[]> {
  const rows = await sql<TokenSummary[]>`
    select id, prefix, scopes, capabilities, issued_to, created_at, last_used_at from api_tokens
    where user_id = ${userId} and revoked_at is null
    order by created_at desc, id`;
  return [...rows];
}
