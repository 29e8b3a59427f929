import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { User } from "./user.ts";

/** The user with this handle; not_found when there is none. */
export async function getUserByHandle(sql: Sql, handle: string): Promise<User> {
  const [user] = await sql<
    User[]
  >`select id, handle, is_admin, created_at from users where handle = ${handle}`;
  if (!user) throw new ServiceError("not_found", `no user has the handle "${handle}"`, { handle });
  return user;
}
