import type { MembershipRole } from "@svc/schemas";
import { type Capability, Role, type Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { type AccessGrant, listAccessGrants } from "./access-grant.ts";
import { liveRole } from "./live-role.ts";
import type { Principal } from "./principal.ts";

/** One organization the user belongs to, as whoami reports it. */
export interface Membership {
  organization_slug: string;
  organization_name: string;
  role: MembershipRole;
  joined_at: Date;
}

/** An open invitation to join an organization, which accept_organization_invitation takes. */
export interface PendingInvitation {
  organization_slug: string;
  organization_name: string;
  role: MembershipRole;
  invited_by_handle: string;
  invited_at: Date;
}

/** Who the caller is, what their token carries, and what they may do now. */
export interface Whoami {
  user: { id: string; handle: string; created_at: Date };
  memberships: Membership[];
  /** Open invitations to organizations, oldest first. */
  invitations: PendingInvitation[];
  /** The highest role the user holds now: contributor, author, trusted_author or administrator. */
  work_role: Role;
  /** Every role the user holds now, lowest first. */
  roles: Role[];
  /** The token's scopes. */
  scopes: Scope[];
  /** The capabilities the token carries that the user still holds (actions check both). */
  capabilities: Capability[];
  /** Every grant of a capability or role, revoked ones included, with grantor and time. */
  grants: AccessGrant[];
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
  const invitations = await sql<PendingInvitation[]>`
    select o.slug as organization_slug, o.name as organization_name, i.role,
      b.handle as invited_by_handle, i.invited_at
    from organization_invitations i
    join organizations o on o.id = i.organization_id
    join users b on b.id = i.invited_by
    where i.user_id = ${user.id} and i.accepted_at is null and i.closed_at is null
    order by i.invited_at, i.id`;
  // liveRole lists roles in catalogue order, lowest first; every user is at least a contributor.
  const workRole = live.roles.at(-1) ?? Role.contributor;
  return {
    user: { id: user.id, handle: user.handle, created_at: user.created_at },
    memberships: [...memberships],
    invitations: [...invitations],
    work_role: workRole,
    roles: live.roles,
    scopes: principal.scopes,
    capabilities: principal.capabilities.filter((c) => live.capabilities.includes(c)),
    grants: await listAccessGrants(sql, user.id),
  };
}
