import type { Sql } from "../core/db/connect-sql.ts";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import { HANDLE_MAX_LENGTH, HANDLE_PATTERN, type User } from "./user.ts";

/** Creates a user with a new random `usr_` id. Throws invalid_input for a bad handle, conflict for a taken one. */
export async function addUser(sql: Sql, input: { handle: string; isAdmin?: boolean }): Promise<User> {
  const { handle, isAdmin = false } = input;
  if (!HANDLE_PATTERN.test(handle) || handle.length > HANDLE_MAX_LENGTH) {
    throw new ServiceError(
      "invalid_input",
      `handle "${handle}" is not valid: use lowercase letters and digits, groups joined by single hyphens, at most ${HANDLE_MAX_LENGTH} characters`,
      { field: "handle" },
    );
  }
  try {
    const [user] = await sql<User[]>`
      insert into users (id, handle, is_admin)
      values (${randomId("usr")}, ${handle}, ${isAdmin})
      returning id, handle, is_admin, created_at`;
    return user!;
  } catch (error) {
    if (isUniqueViolation(error, "users_handle_key")) {
      throw new ServiceError("conflict", `handle "${handle}" is taken: choose another one`, {
        field: "handle",
      });
    }
    throw error;
  }
}
