import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomChars } from "../core/ids/random-chars.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { safeReturnTo } from "./return-to.ts";
import { secretHash } from "./session-secret.ts";

/** A sign-in link is good for this long, and once. */
export const SIGN_IN_LINK_LIFETIME_MS = 15 * 60 * 1000;

/** A link's secret: `svl_` and 43 base62 characters (about 256 bits). */
export const SIGN_IN_LINK_TOKEN_PATTERN = /^svl_[0-9A-Za-z]{43}$/;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A link as issued: the token appears here once; only its sha256 is stored. */
export interface IssuedSignInLink {
  token: string;
  /** `{base_url}/sign-in/link/{token}`. */
  url: string;
  user_id: string;
  expires_at: Date;
}

/** The path a sign-in link's token is opened at. */
export function signInLinkPath(token: string): string {
  return `/sign-in/link/${token}`;
}

/**
 * Issues a one-time sign-in link for the user with `handle` (an operator's `svc-server user
 * login-link`): single use, valid 15 minutes. `returnTo`, when given, must be a path on this
 * service (invalid_input otherwise): the browser lands there once signed in.
 */
export async function issueSignInLink(
  services: Pick<Services, "sql" | "clock">,
  input: { handle: string; baseUrl: string; returnTo?: string | undefined },
): Promise<IssuedSignInLink> {
  let returnTo: string | null = null;
  if (input.returnTo !== undefined) {
    returnTo = safeReturnTo(input.returnTo);
    if (returnTo === null) {
      throw new ServiceError(
        "invalid_input",
        `return_to "${input.returnTo}" is not a path on this service: give one starting with a single "/", such as /settings`,
        { field: "return_to" },
      );
    }
  }
  const [user] = await services.sql<{ id: string }[]>`select id from users where handle = ${input.handle}`;
  if (!user)
    throw new ServiceError("not_found", `no user has the handle "${input.handle}"`, { handle: input.handle });
  const token = `svl_${randomChars(BASE62, 43)}`;
  const now = services.clock();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_LIFETIME_MS);
  await services.sql`
    insert into sign_in_links (id, user_id, token_hash, return_to, created_at, expires_at)
    values (${randomId("sil")}, ${user.id}, ${secretHash(token)}, ${returnTo}, ${now}, ${expiresAt})`;
  return { token, url: `${input.baseUrl}${signInLinkPath(token)}`, user_id: user.id, expires_at: expiresAt };
}

/**
 * Uses a sign-in link: marks it used (in one statement, so two browsers racing on one link cannot
 * both win) and returns its user and return path. sign_in_link_invalid when the token is
 * malformed, unknown, already used or expired.
 */
export async function redeemSignInLink(
  services: Pick<Services, "sql" | "clock">,
  token: unknown,
): Promise<{ userId: string; returnTo: string | null }> {
  if (typeof token !== "string" || !SIGN_IN_LINK_TOKEN_PATTERN.test(token)) throw invalidLink();
  const now = services.clock();
  const [row] = await inTransaction(
    services.sql,
    (tx) => tx<{ user_id: string; return_to: string | null }[]>`
      update sign_in_links set used_at = ${now}
      where token_hash = ${secretHash(token)} and used_at is null and expires_at > ${now}
      returning user_id, return_to`,
  );
  if (!row) throw invalidLink();
  return { userId: row.user_id, returnTo: row.return_to };
}

function invalidLink(): ServiceError {
  return new ServiceError(
    "sign_in_link_invalid",
    "this sign-in link is unknown, already used or expired (links last 15 minutes and work once): ask an operator for a new one",
  );
}
