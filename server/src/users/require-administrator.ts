import { Role } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { type LiveRole, liveRole } from "./live-role.ts";

/** Checks, live, that a user is an administrator now; throws forbidden otherwise. */
export async function requireAdministrator(sql: Sql, userId: string): Promise<LiveRole> {
  const live = await liveRole(sql, userId);
  if (!live.roles.includes(Role.administrator)) {
    throw new ServiceError("forbidden", "this needs the administrator role", { role: Role.administrator });
  }
  return live;
}
