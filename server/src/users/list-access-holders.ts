import type { Sql } from "../core/db/connect-sql.ts";

/** One live grant of author or trusted-author access, as the administrators' access page lists it. */
export interface AccessHolder {
  handle: string;
  access: "author" | "trusted_author";
  granted_at: Date;
  /** The administrator who granted it; null for an operator's command. */
  granted_by_handle: string | null;
}

/** Everyone who holds author (a capability) or trusted_author (a role) now, by handle. */
export async function listAccessHolders(sql: Sql): Promise<AccessHolder[]> {
  const rows = await sql<AccessHolder[]>`
    select u.handle, g.access, g.granted_at, gb.handle as granted_by_handle
    from (
      select user_id, capability as access, granted_at, granted_by from user_capabilities
      where capability = 'author' and revoked_at is null
      union all
      select user_id, role as access, granted_at, granted_by from user_roles
      where role = 'trusted_author' and revoked_at is null
    ) g
    join users u on u.id = g.user_id
    left join users gb on gb.id = g.granted_by
    order by g.access, u.handle`;
  return [...rows];
}
