import { MembershipRole } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import { findUser } from "../users/find-user.ts";
import { findOrganization, membershipRole, OPEN_INVITATIONS_MAX, requireMembership } from "./organization.ts";
import type { InvitationView } from "./read-organization.ts";

export interface InviteMemberInput {
  organization: string;
  /** The invitee's handle or `usr_` id. */
  user: string;
  role?: MembershipRole;
}

/**
 * invite_organization_member: an owner offers a user a role (default member); the invitee sees
 * it in whoami and accepts or declines it. Inviting a current member with another role offers a
 * role change (how a member becomes an owner). An open invitation with the same role is returned
 * as it is; one with another role is replaced. conflict when the user already has that role.
 */
export async function inviteMember(
  services: Services,
  caller: Caller,
  input: InviteMemberInput,
): Promise<{ invitation: InvitationView & { organization_slug: string } }> {
  const role = input.role ?? MembershipRole.member;
  const by = caller.principal.user;
  return inTransaction(services.sql, async (tx) => {
    const organization = await findOrganization(tx, input.organization, { lock: true });
    await requireMembership(tx, organization, by.id, { owner: true });
    const invitee = await findUser(tx, input.user);
    if ((await membershipRole(tx, organization.id, invitee.id)) === role) {
      throw new ServiceError("conflict", `${invitee.handle} is already a ${role} of "${organization.slug}"`, {
        field: "user",
      });
    }
    const [open] = await tx<{ id: string; role: MembershipRole }[]>`
      select id, role from organization_invitations
      where organization_id = ${organization.id} and user_id = ${invitee.id} and accepted_at is null and closed_at is null`;
    if (!open) {
      const [pending] = await tx<{ n: number }[]>`
        select count(*)::int as n from organization_invitations
        where organization_id = ${organization.id} and accepted_at is null and closed_at is null`;
      if (pending!.n >= OPEN_INVITATIONS_MAX) {
        throw new ServiceError(
          "conflict",
          `"${organization.slug}" has ${OPEN_INVITATIONS_MAX} open invitations, the most it may have: cancel some with remove_organization_member`,
          { field: "user", limit: OPEN_INVITATIONS_MAX },
        );
      }
    }
    if (open && open.role !== role) {
      await tx`update organization_invitations set closed_at = now(), closed_by = ${by.id} where id = ${open.id}`;
    }
    const [row] =
      open && open.role === role
        ? await tx<{ invited_by_handle: string; invited_at: Date }[]>`
            select b.handle as invited_by_handle, i.invited_at
            from organization_invitations i join users b on b.id = i.invited_by where i.id = ${open.id}`
        : await tx<{ invited_by_handle: string; invited_at: Date }[]>`
            insert into organization_invitations (organization_id, user_id, role, invited_by)
            values (${organization.id}, ${invitee.id}, ${role}, ${by.id})
            returning ${by.handle}::text as invited_by_handle, invited_at`;
    return {
      invitation: {
        organization_slug: organization.slug,
        handle: invitee.handle,
        user_id: invitee.id,
        role,
        invited_by_handle: row!.invited_by_handle,
        invited_at: row!.invited_at,
      },
    };
  });
}
