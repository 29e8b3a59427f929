import { Capability, GrantedRole, Role } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";

/**
 * A user's authority as the database says now. Roles are checked live on each action from the
 * user's current grants, independent of what a token claims (spec 5.4): every user is a
 * contributor; author comes from the author capability or the trusted author role; trusted
 * author and administrator from role grants.
 */
export interface LiveRole {
  user_id: string;
  /** Every user is a contributor; `trusted_author` implies `author`. */
  roles: Role[];
  /** The capabilities granted and not revoked, in catalogue order. */
  capabilities: Capability[];
}

/**
 * Reads a user's roles and capabilities from their current grants, never from a token: an
 * administrator or a capability revoked a moment ago is gone on the next action. not_found when
 * the user does not exist.
 */
export async function liveRole(sql: Sql, userId: string): Promise<LiveRole> {
  const [row] = await sql<{ capabilities: Capability[]; granted_roles: GrantedRole[] }[]>`
    select
      array(select g.capability from user_capabilities g where g.user_id = u.id and g.revoked_at is null) as capabilities,
      array(select r.role from user_roles r where r.user_id = u.id and r.revoked_at is null) as granted_roles
    from users u where u.id = ${userId}`;
  if (!row) throw new ServiceError("not_found", `no user has the id ${userId}`, { user_id: userId });
  const held = new Set(row.capabilities);
  const granted = new Set(row.granted_roles);
  const roles = new Set<Role>([Role.contributor]);
  if (held.has(Capability.author) || granted.has(GrantedRole.trusted_author)) roles.add(Role.author);
  if (granted.has(GrantedRole.trusted_author)) roles.add(Role.trusted_author);
  if (granted.has(GrantedRole.administrator)) roles.add(Role.administrator);
  return {
    user_id: userId,
    roles: Object.values(Role).filter((r) => roles.has(r)),
    capabilities: Object.values(Capability).filter((c) => held.has(c)),
  };
}
