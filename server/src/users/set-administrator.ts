import { GrantedRole } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { grantRole } from "./grant-role.ts";
import { revokeRole } from "./revoke-role.ts";
import type { RoleGrant } from "./role-grant.ts";

/**
 * Gives or takes the administrator role, recorded as a grant or revocation by `by` (null for an
 * operator); effective on the user's next action, whatever their tokens say. Taking it from a
 * user who is not an administrator is not_found.
 */
export async function setAdministrator(
  sql: Sql,
  userId: string,
  isAdmin: boolean,
  by: string | null = null,
): Promise<RoleGrant> {
  const role = GrantedRole.administrator;
  return isAdmin
    ? grantRole(sql, { userId, role, grantedBy: by })
    : revokeRole(sql, { userId, role, revokedBy: by });
}
