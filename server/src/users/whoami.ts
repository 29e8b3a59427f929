import type { MembershipRole } from "@svc/schemas";
import { type Capability, Role, type Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { liveRole } from "./live-role.ts";
import type { Principal } from "./principal.ts";

/** One organization the user belongs to, as whoami reports it. */
export interface Membership {
  organization_slug: string;
  organization_name: string;
  role: MembershipRole;
  joined_at: Date;
}

/** Who the caller is, what their token carries, and what they may do now. */
export interface Whoami {
  user: { id: string; handle: string; created_at: Date };
  memberships: Membership[];
  /** The highest role the user holds now: contributor, author, trusted_author or administrator. */
  work_role: Role;
  /** The token's scopes. */
  scopes: Scope[];
  /** The capabilities the token carries that the user still holds (actions check both). */
  capabilities: Capability[];
}

/**
 * The whoami report for a principal. Roles and capabilities are read live (spec 5.4), so a
 * capability revoked after the token was issued no longer shows, whatever the token claims.
 */
export async function whoami(sql: Sql, principal: Principal): Promise<Whoami> {
  const { user } = principal;
  const live = await liveRole(sql, user.id);
  const memberships = await sql<Membership[]>`
    select o.slug as organization_slug, o.name as organization_name, m.role, m.joined_at
    from memberships m join organizations o on o.id = m.organization_id
    where m.user_id = ${user.id}
    order by m.joined_at, o.slug`;
  // liveRole lists roles in catalogue order, lowest first; every user is at least a contributor.
  const workRole = live.roles.at(-1) ?? Role.contributor;
  return {
    user: { id: user.id, handle: user.handle, created_at: user.created_at },
    memberships: [...memberships],
    work_role: workRole,
    scopes: principal.scopes,
    capabilities: principal.capabilities.filter((c) => live.capabilities.includes(c)),
  };
}
