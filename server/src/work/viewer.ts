import type { Sql } from "../db/connect-sql.ts";
import { ServiceError } from "../errors/service-error.ts";
import type { Principal } from "../users/principal.ts";

/**
 * The caller of a read, as visibility rules need them: their user id and whether they are an
 * administrator right now. Built per request from the database, never from token claims, so a
 * revoked administrator loses sight of other owners' private work on their next call.
 */
export interface Viewer {
  userId: string;
  isAdministrator: boolean;
}

/** The viewer a principal stands for, with the administrator role read live. */
export async function viewerOf(sql: Sql, principal: Principal): Promise<Viewer> {
  const [row] = await sql<
    { is_admin: boolean }[]
  >`select is_admin from users where id = ${principal.user.id}`;
  if (!row) throw new ServiceError("unauthorized", "the token's user no longer exists: sign in again");
  return { userId: principal.user.id, isAdministrator: row.is_admin };
}
