import type { Capability } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { CapabilityGrant } from "./capability-grant.ts";
import { forgetPrincipals } from "./principal-cache.ts";

/**
 * Revokes a user's live grant of a capability, recording who (null for an operator) and when.
 * Every later action sees it at once; tokens issued before keep their claim, but actions check
 * the live grant too. not_found when the user does not hold the capability.
 */
export async function revokeCapability(
  sql: Sql,
  input: { userId: string; capability: Capability; revokedBy?: string | null },
): Promise<CapabilityGrant> {
  const { userId, capability, revokedBy = null } = input;
  const [grant] = await sql<CapabilityGrant[]>`
    update user_capabilities set revoked_at = greatest(now(), granted_at), revoked_by = ${revokedBy}
    where user_id = ${userId} and capability = ${capability} and revoked_at is null
    returning user_id, capability, granted_by, granted_at, revoked_by, revoked_at`;
  if (!grant) {
    throw new ServiceError("not_found", `user ${userId} does not hold the capability ${capability}`, {
      user_id: userId,
      capability,
    });
  }
  forgetPrincipals(sql);
  return grant;
}
