import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";

/** Gives or takes the administrator role; effective on the user's next action, whatever their tokens say. */
export async function setAdministrator(sql: Sql, userId: string, isAdmin: boolean): Promise<void> {
  const rows = await sql`update users set is_admin = ${isAdmin} where id = ${userId} returning id`;
  if (rows.length === 0)
    throw new ServiceError("not_found", `no user has the id ${userId}`, { user_id: userId });
}
