import { type SignupMode, SignupMode as SignupModes } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import { HANDLE_MAX_LENGTH } from "./user.ts";

/** A GitHub account as GitHub's `GET /user` describes it. */
export interface GitHubAccount {
  /** GitHub's numeric user id: the link, since it never changes. */
  id: number;
  /** The current login (a user can rename it): for display and invitations only. */
  login: string;
}

/** GitHub logins: letters, digits and hyphens, at most 39 characters. */
export const GITHUB_LOGIN_PATTERN = /^[A-Za-z0-9-]{1,39}$/;

/**
 * The user a GitHub account signs in as:
 *
 * 1. the user linked to its numeric id (their recorded login follows a rename);
 * 2. else the user an operator invited by this login (not linked yet): linked now;
 * 3. else, when sign-up is open, a new contributor whose handle comes from the login;
 * 4. else signup_closed.
 */
export async function userForGitHubAccount(
  sql: Sql,
  account: GitHubAccount,
  signup: SignupMode,
): Promise<{ userId: string; created: boolean }> {
  return inTransaction(sql, async (tx) => {
    const [linked] = await tx<{ id: string }[]>`
      update users set github_login = ${account.login}
      where github_user_id = ${account.id}
      returning id`;
    if (linked) return { userId: linked.id, created: false };
    const [invited] = await tx<{ id: string }[]>`
      update users set github_user_id = ${account.id}, github_login = ${account.login}
      where lower(github_login) = lower(${account.login}) and github_user_id is null
      returning id`;
    if (invited) return { userId: invited.id, created: false };
    if (signup !== SignupModes.open) {
      throw new ServiceError(
        "signup_closed",
        `the GitHub account ${account.login} is not invited to this service: ask an operator to run svc-server user add <handle> --github ${account.login}`,
      );
    }
    const base = handleFromLogin(account.login);
    for (let n = 1; ; n++) {
      const suffix = n === 1 ? "" : `-${n}`;
      const handle = `${base.slice(0, HANDLE_MAX_LENGTH - suffix.length).replace(/-+$/, "")}${suffix}`;
      try {
        const [user] = await tx.savepoint(
          (sp) => sp<{ id: string }[]>`
            insert into users (id, handle, github_user_id, github_login)
            values (${randomId("usr")}, ${handle}, ${account.id}, ${account.login})
            returning id`,
        );
        return { userId: user!.id, created: true };
      } catch (error) {
        if (!isUniqueViolation(error, "users_handle_key")) throw error;
      }
    }
  });
}

/**
 * Records that the user with `userId` signs in with the GitHub account of `login` (an operator's
 * invitation): the first Sign in with GitHub by that login links its numeric id. conflict when
 * another user is already invited by that login; invalid_input for a login GitHub would refuse.
 */
export async function inviteGitHubLogin(sql: Sql, userId: string, login: string): Promise<void> {
  if (!GITHUB_LOGIN_PATTERN.test(login)) {
    throw new ServiceError(
      "invalid_input",
      `"${login}" is not a GitHub login: give letters, digits and hyphens, at most 39 characters`,
      { field: "github" },
    );
  }
  try {
    const rows = await sql`
      update users set github_login = ${login}
      where id = ${userId} and github_user_id is null
      returning id`;
    if (rows.length === 0) {
      throw new ServiceError(
        "conflict",
        "this user is already linked to a GitHub account: they sign in with it (the link follows GitHub's user id)",
        { field: "github" },
      );
    }
  } catch (error) {
    if (isUniqueViolation(error, "users_github_login_invited")) {
      throw new ServiceError("conflict", `another user is already invited as GitHub login ${login}`, {
        field: "github",
      });
    }
    throw error;
  }
}

/** A valid handle from a GitHub login: lowercase, runs of anything else as one hyphen. */
export function handleFromLogin(login: string): string {
  const handle = login
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, HANDLE_MAX_LENGTH)
    .replace(/-+$/, "");
  return handle === "" ? "user" : handle;
}
