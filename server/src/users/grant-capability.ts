import type { Capability } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { isCapability } from "./capability.ts";
import type { CapabilityGrant } from "./capability-grant.ts";
import { forgetPrincipals } from "./principal-cache.ts";

/**
 * Grants a capability, recording the grantor (null for an operator) and the time. Granting one
 * the user already holds changes nothing and returns the live grant, with its first grantor.
 */
export async function grantCapability(
  sql: Sql,
  input: { userId: string; capability: Capability; grantedBy?: string | null },
): Promise<CapabilityGrant> {
  const { userId, capability, grantedBy = null } = input;
  if (!isCapability(capability)) {
    throw new ServiceError(
      "invalid_input",
      `"${capability}" is not a capability: use author or custom_verifier`,
      {
        field: "capability",
      },
    );
  }
  const [user] = await sql`select 1 from users where id = ${userId}`;
  if (!user) throw new ServiceError("not_found", `no user has the id ${userId}`, { user_id: userId });
  const [grant] = await sql<CapabilityGrant[]>`
    with inserted as (
      insert into user_capabilities (user_id, capability, granted_by)
      values (${userId}, ${capability}, ${grantedBy})
      on conflict (user_id, capability) where revoked_at is null do nothing
      returning user_id, capability, granted_by, granted_at, revoked_by, revoked_at
    )
    select * from inserted
    union all
    select user_id, capability, granted_by, granted_at, revoked_by, revoked_at from user_capabilities
    where user_id = ${userId} and capability = ${capability} and revoked_at is null
      and not exists (select 1 from inserted)`;
  forgetPrincipals(sql);
  return grant!;
}
