import { MembershipRole } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import { findOrganization, type Member, membershipRole, type Organization } from "./organization.ts";

/** An open invitation as owners see it. */
export interface InvitationView {
  handle: string;
  user_id: string;
  role: MembershipRole;
  invited_by_handle: string;
  invited_at: Date;
}

/** get_organization's result: the Organization, its members, the caller's role and, for owners, open invitations. */
export interface OrganizationView {
  organization: Organization;
  /** The caller's role, or null for an administrator or an invitee who is not a member. */
  your_role: MembershipRole | null;
  members: Member[];
  /** Open invitations; owners only (an empty list for others). */
  invitations: InvitationView[];
}

/**
 * get_organization: members, invitees and administrators read an Organization; to anyone else
 * it is not_found, so a private team's existence does not leak.
 */
export async function getOrganization(
  services: Services,
  caller: Caller,
  input: { organization: string },
): Promise<OrganizationView> {
  const { sql } = services;
  const { user } = caller.principal;
  const organization = await findOrganization(sql, input.organization);
  const role = await membershipRole(sql, organization.id, user.id);
  if (role === null && !user.is_admin) {
    const [invited] = await sql`
      select 1 from organization_invitations
      where organization_id = ${organization.id} and user_id = ${user.id} and accepted_at is null and closed_at is null`;
    if (!invited) {
      throw new ServiceError("not_found", `no organization has the slug or id "${input.organization}"`, {
        field: "organization",
      });
    }
  }
  return readOrganization(sql, organization.id, user.id);
}

/** The view of an Organization for a user (no access check: callers check). */
export async function readOrganization(
  sql: Sql,
  organizationId: string,
  userId: string,
): Promise<OrganizationView> {
  const organization = await findOrganization(sql, organizationId);
  const role = await membershipRole(sql, organizationId, userId);
  const members = await sql<Member[]>`
    select m.user_id, u.handle, m.role, m.joined_at
    from memberships m join users u on u.id = m.user_id
    where m.organization_id = ${organizationId}
    order by m.joined_at, u.handle`;
  const invitations =
    role === MembershipRole.owner
      ? await sql<InvitationView[]>`
          select u.handle, i.user_id, i.role, b.handle as invited_by_handle, i.invited_at
          from organization_invitations i
          join users u on u.id = i.user_id
          join users b on b.id = i.invited_by
          where i.organization_id = ${organizationId} and i.accepted_at is null and i.closed_at is null
          order by i.invited_at, i.id`
      : [];
  return { organization, your_role: role, members: [...members], invitations: [...invitations] };
}
