import type { Access } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

/**
 * One grant of a capability or a role as whoami shows it: what, by whom, when, and its
 * revocation. A null grantor or revoker is an operator acting with `svc-server`.
 */
export interface AccessGrant {
  access: Access;
  granted_by: string | null;
  granted_by_handle: string | null;
  granted_at: Date;
  revoked_by: string | null;
  revoked_by_handle: string | null;
  revoked_at: Date | null;
}

/** Every grant a user ever received, capabilities and roles, revoked ones included, oldest first. */
export async function listAccessGrants(sql: Sql, userId: string): Promise<AccessGrant[]> {
  const rows = await sql<AccessGrant[]>`
    select g.access, g.granted_by, gb.handle as granted_by_handle, g.granted_at,
      g.revoked_by, rb.handle as revoked_by_handle, g.revoked_at
    from (
      select capability as access, granted_by, granted_at, revoked_by, revoked_at, 0 as kind, id
      from user_capabilities where user_id = ${userId}
      union all
      select role, granted_by, granted_at, revoked_by, revoked_at, 1, id
      from user_roles where user_id = ${userId}
    ) g
    left join users gb on gb.id = g.granted_by
    left join users rb on rb.id = g.revoked_by
    order by g.granted_at, g.kind, g.id`;
  return [...rows];
}
