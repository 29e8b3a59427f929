import { MembershipRole } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import {
  findOrganization,
  lastOwner,
  membershipRole,
  type Organization,
  ownerCount,
} from "./organization.ts";
import { type OrganizationView, readOrganization } from "./read-organization.ts";

/**
 * accept_organization_invitation: the invitee joins with the offered role (joined now), or, as a
 * member already, takes the offered role and keeps their joined_at. Accepting a demotion as the
 * only owner is last_owner. not_found when the caller has no open invitation.
 */
export async function acceptInvitation(
  services: Services,
  caller: Caller,
  input: { organization: string },
): Promise<OrganizationView> {
  const userId = caller.principal.user.id;
  await inTransaction(services.sql, async (tx) => {
    const organization = await findOrganization(tx, input.organization, { lock: true });
    const invitation = await openInvitation(tx, organization, userId);
    const current = await membershipRole(tx, organization.id, userId);
    if (current === null) {
      await tx`insert into memberships (organization_id, user_id, role) values (${organization.id}, ${userId}, ${invitation.role})`;
    } else {
      if (current === MembershipRole.owner && (await ownerCount(tx, organization.id)) === 1) {
        throw lastOwner(organization);
      }
      await tx`update memberships set role = ${invitation.role}
        where organization_id = ${organization.id} and user_id = ${userId}`;
    }
    await tx`update organization_invitations set accepted_at = now() where id = ${invitation.id}`;
  });
  const organization = await findOrganization(services.sql, input.organization);
  return readOrganization(services.sql, organization.id, userId);
}

/**
 * decline_organization_invitation: the invitee turns an open invitation down; it stays recorded
 * as closed by them. not_found when the caller has no open invitation.
 */
export async function declineInvitation(
  services: Services,
  caller: Caller,
  input: { organization: string },
): Promise<{ declined: { organization_slug: string; role: MembershipRole } }> {
  const userId = caller.principal.user.id;
  return inTransaction(services.sql, async (tx) => {
    const organization = await findOrganization(tx, input.organization, { lock: true });
    const invitation = await openInvitation(tx, organization, userId);
    await tx`update organization_invitations set closed_at = now(), closed_by = ${userId} where id = ${invitation.id}`;
    return { declined: { organization_slug: organization.slug, role: invitation.role } };
  });
}

async function openInvitation(
  sql: Sql,
  organization: Organization,
  userId: string,
): Promise<{ id: string; role: MembershipRole }> {
  const [invitation] = await sql<{ id: string; role: MembershipRole }[]>`
    select id, role from organization_invitations
    where organization_id = ${organization.id} and user_id = ${userId} and accepted_at is null and closed_at is null`;
  if (!invitation) {
    throw new ServiceError(
      "not_found",
      `you have no open invitation to "${organization.slug}": whoami lists your invitations`,
      { field: "organization" },
    );
  }
  return invitation;
}
