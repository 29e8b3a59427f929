import type { Access } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { isCapability } from "./capability.ts";
import type { CapabilityGrant } from "./capability-grant.ts";
import { grantCapability } from "./grant-capability.ts";
import { grantRole, isGrantedRole } from "./grant-role.ts";
import { revokeCapability } from "./revoke-capability.ts";
import { revokeRole } from "./revoke-role.ts";
import type { RoleGrant } from "./role-grant.ts";

/** Whether a string names a capability or a granted role. */
export function isAccess(value: string): value is Access {
  return isCapability(value) || isGrantedRole(value);
}

/**
 * Grants a capability (author, custom_verifier) or a role (trusted_author, administrator), as
 * the operator commands do; `grantedBy` null records an operator.
 */
export function grantAccess(
  sql: Sql,
  userId: string,
  access: Access,
  grantedBy: string | null = null,
): Promise<CapabilityGrant | RoleGrant> {
  if (isCapability(access)) return grantCapability(sql, { userId, capability: access, grantedBy });
  if (isGrantedRole(access)) return grantRole(sql, { userId, role: access, grantedBy });
  throw unknownAccess(access);
}

/** Revokes a capability or a role; the grant stays recorded with its revoker and time. */
export function revokeAccess(
  sql: Sql,
  userId: string,
  access: Access,
  revokedBy: string | null = null,
): Promise<CapabilityGrant | RoleGrant> {
  if (isCapability(access)) return revokeCapability(sql, { userId, capability: access, revokedBy });
  if (isGrantedRole(access)) return revokeRole(sql, { userId, role: access, revokedBy });
  throw unknownAccess(access);
}

function unknownAccess(access: string): ServiceError {
  return new ServiceError(
    "invalid_input",
    `"${access}" is neither a capability nor a granted role: use author, custom_verifier, trusted_author or administrator`,
    { field: "access" },
  );
}
