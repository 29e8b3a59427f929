import { MembershipRole } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import { findUser } from "../users/find-user.ts";
import {
  findOrganization,
  lastOwner,
  membershipRole,
  type Organization,
  ownerCount,
  requireMembership,
} from "./organization.ts";

/** What a removal or a leave did. */
export interface MembershipEnded {
  organization_slug: string;
  user: { id: string; handle: string };
  /** The role the user had, or null when only an open invitation was cancelled. */
  role: MembershipRole | null;
  /** Whether an open invitation of the user was cancelled too. */
  invitation_cancelled: boolean;
}

/**
 * remove_organization_member: an owner removes a member (or another owner) and cancels their open
 * invitation, if any; removing a user who only has an open invitation cancels it. The user's
 * Attempts stay attributed to the Organization. not_found when the user is neither a member nor
 * invited; removing yourself is leaving (last_owner for the only owner).
 */
export async function removeMember(
  services: Services,
  caller: Caller,
  input: { organization: string; user: string },
): Promise<MembershipEnded> {
  const by = caller.principal.user.id;
  return inTransaction(services.sql, async (tx) => {
    const organization = await findOrganization(tx, input.organization, { lock: true });
    await requireMembership(tx, organization, by, { owner: true });
    const user = await findUser(tx, input.user);
    return endMembership(tx, organization, { id: user.id, handle: user.handle }, by);
  });
}

/**
 * leave_organization: the caller stops being a member; the only owner cannot leave (last_owner)
 * and must make another owner first.
 */
export async function leaveOrganization(
  services: Services,
  caller: Caller,
  input: { organization: string },
): Promise<MembershipEnded> {
  const { id, handle } = caller.principal.user;
  return inTransaction(services.sql, async (tx) => {
    const organization = await findOrganization(tx, input.organization, { lock: true });
    await requireMembership(tx, organization, id);
    return endMembership(tx, organization, { id, handle }, id);
  });
}

/** Ends a membership and any open invitation, with the Organization row locked by the caller. */
async function endMembership(
  tx: Sql,
  organization: Organization,
  user: { id: string; handle: string },
  by: string,
): Promise<MembershipEnded> {
  const role = await membershipRole(tx, organization.id, user.id);
  if (role === MembershipRole.owner && (await ownerCount(tx, organization.id)) === 1) {
    throw lastOwner(organization);
  }
  const cancelled = await tx`
    update organization_invitations set closed_at = now(), closed_by = ${by}
    where organization_id = ${organization.id} and user_id = ${user.id} and accepted_at is null and closed_at is null
    returning id`;
  if (role === null && cancelled.length === 0) {
    throw new ServiceError(
      "not_found",
      `${user.handle} is neither a member of "${organization.slug}" nor invited to it`,
      { field: "user" },
    );
  }
  await tx`delete from memberships where organization_id = ${organization.id} and user_id = ${user.id}`;
  return { organization_slug: organization.slug, user, role, invitation_cancelled: cancelled.length > 0 };
}
