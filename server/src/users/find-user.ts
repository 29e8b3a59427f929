import { IdPrefix } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { User } from "./user.ts";

/** The user named by a handle or a `usr_` id; not_found naming `field` when there is none. */
export async function findUser(sql: Sql, handleOrId: string, field = "user"): Promise<User> {
  const byId = handleOrId.startsWith(`${IdPrefix.user}_`);
  const [user] = await sql<User[]>`
    select id, handle, is_admin, created_at from users
    where ${byId ? sql`id` : sql`handle`} = ${handleOrId}`;
  if (!user) {
    throw new ServiceError(
      "not_found",
      `no user has the ${byId ? "id" : "handle"} "${handleOrId}": check the spelling (handles are lowercase)`,
      { field },
    );
  }
  return user;
}
