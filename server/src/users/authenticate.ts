import type { Capability, Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { liveCapabilities } from "./live-capabilities.ts";
import type { Principal } from "./principal.ts";
import { TOKEN_PATTERN, tokenHash } from "./token-format.ts";

/**
 * The principal a bearer token stands for, or null when the token is malformed, unknown or
 * revoked. Accepts the token alone or a whole `Authorization` value (`Bearer <token>`). The token
 * is looked up by its sha256, so the secret never reaches the database.
 */
export async function authenticate(sql: Sql, bearer: string | undefined): Promise<Principal | null> {
  const token = (bearer ?? "").replace(/^bearer\s+/i, "").trim();
  if (!TOKEN_PATTERN.test(token)) return null;
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
