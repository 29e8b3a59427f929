import type { GrantedRole } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { forgetPrincipals } from "./principal-cache.ts";
import type { RoleGrant } from "./role-grant.ts";

/**
 * Revokes a user's live grant of a role, recording who (null for an operator) and when; the grant
 * row stays. Roles are checked live, so the next action of the user sees it, whatever token they
 * hold. not_found when the user does not hold the role.
 */
export async function revokeRole(
  sql: Sql,
  input: { userId: string; role: GrantedRole; revokedBy?: string | null },
): Promise<RoleGrant> {
  const { userId, role, revokedBy = null } = input;
  const [grant] = await sql<RoleGrant[]>`
    update user_roles set revoked_at = greatest(now(), granted_at), revoked_by = ${revokedBy}
    where user_id = ${userId} and role = ${role} and revoked_at is null
    returning user_id, role, granted_by, granted_at, revoked_by, revoked_at`;
  if (!grant) {
    throw new ServiceError("not_found", `user ${userId} does not hold the role ${role}`, {
      user_id: userId,
      role,
    });
  }
  // Roles are live: an administrator revoked here is not one on this process's next request.
  forgetPrincipals(sql);
  return grant;
}
