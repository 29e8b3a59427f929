import { Capability, Role } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { type LiveRole, liveRole } from "./live-role.ts";

/**
 * Checks, live, that a user holds a capability now (the trusted author role counts as `author`), and
 * throws forbidden naming what is missing otherwise. Returns the live role for further checks.
 */
export async function requireCapability(sql: Sql, userId: string, capability: Capability): Promise<LiveRole> {
  const live = await liveRole(sql, userId);
  const holds =
    live.capabilities.includes(capability) ||
    (capability === Capability.author && live.roles.includes(Role.author));
  if (!holds) {
    throw new ServiceError("forbidden", `this needs the ${capability} capability, which an operator grants`, {
      capability,
    });
  }
  return live;
}
