import { GrantedRole } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { forgetPrincipals } from "./principal-cache.ts";
import type { RoleGrant } from "./role-grant.ts";

/** Whether a string names a role that is granted (trusted_author, administrator). */
export function isGrantedRole(value: string): value is GrantedRole {
  return Object.hasOwn(GrantedRole, value);
}

/**
 * Grants a role, recording the grantor (null for an operator) and the time. Granting one the
 * user already holds changes nothing and returns the live grant, with its first grantor. An
 * administrator grant also sets `users.is_admin`, which mirrors it (a database trigger).
 */
export async function grantRole(
  sql: Sql,
  input: { userId: string; role: GrantedRole; grantedBy?: string | null },
): Promise<RoleGrant> {
  const { userId, role, grantedBy = null } = input;
  if (!isGrantedRole(role)) {
    throw new ServiceError(
      "invalid_input",
      `"${role}" is not a granted role: use trusted_author or administrator`,
      {
        field: "role",
      },
    );
  }
  const [user] = await sql`select 1 from users where id = ${userId}`;
  if (!user) throw new ServiceError("not_found", `no user has the id ${userId}`, { user_id: userId });
  const [grant] = await sql<RoleGrant[]>`
    with inserted as (
      insert into user_roles (user_id, role, granted_by)
      values (${userId}, ${role}, ${grantedBy})
      on conflict (user_id, role) where revoked_at is null do nothing
      returning user_id, role, granted_by, granted_at, revoked_by, revoked_at
    )
    select * from inserted
    union all
    select user_id, role, granted_by, granted_at, revoked_by, revoked_at from user_roles
    where user_id = ${userId} and role = ${role} and revoked_at is null
      and not exists (select 1 from inserted)`;
  // Roles are live: the grant holds on this process's next request, not after the notice.
  forgetPrincipals(sql);
  return grant!;
}
