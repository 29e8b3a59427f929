import type { Capability } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import { isCapability } from "./capability.ts";
import { isScope } from "./scope.ts";
import { newTokenSecret, tokenHash, tokenPrefix } from "./token-format.ts";
import { type TokenScope, tokenScope } from "./token-scope.ts";

/** A token as issued: the secret appears here once and is never stored. */
export interface IssuedToken extends TokenScope {
  id: string;
  /** The secret, `svc_` and 40 base62 characters. Shown once. */
  token: string;
  /** Its first 12 characters: public, names the token for `svc-server token revoke`. */
  prefix: string;
  user_id: string;
}

/**
 * Issues a bearer token to the user with `handle`. `requestedScopes` names `read` and/or
 * `contribute`, and may name capabilities to narrow them (see tokenScope). The user's grants are
 * read in the same transaction that stores the token, so the token carries exactly the
 * capabilities held when it was issued (a database trigger checks it again). `issuedTo` names the
 * command line a `svc login --mcp` token goes to; an operator's token has none. `own` is a token a
 * person made for themselves on the settings page, named, and expiring when they chose.
 */
export async function issueToken(
  sql: Sql,
  handle: string,
  requestedScopes: readonly string[],
  issuedTo: string | null = null,
  /** A person's own token (the settings page): its name and when it stops working (null: never). */
  own: { name: string; expiresAt: Date | null } | null = null,
): Promise<IssuedToken> {
  const unknown = requestedScopes.filter((s) => !isScope(s) && !isCapability(s));
  if (unknown.length > 0) {
    throw new ServiceError(
      "invalid_input",
      `unknown scope ${unknown.map((s) => `"${s}"`).join(", ")}: request read and/or contribute`,
      { field: "scopes" },
    );
  }
  if (!requestedScopes.some(isScope)) {
    throw new ServiceError("invalid_input", "a token needs a scope: request read and/or contribute", {
      field: "scopes",
    });
  }
  return inTransaction(sql, async (tx) => {
    const [user] = await tx<{ id: string }[]>`select id from users where handle = ${handle}`;
    if (!user) throw new ServiceError("not_found", `no user has the handle "${handle}"`, { handle });
    const grants = await tx<{ capability: Capability }[]>`
      select capability from user_capabilities where user_id = ${user.id} and revoked_at is null`;
    const scope = tokenScope(
      requestedScopes,
      grants.map((g) => g.capability),
    );
    for (;;) {
      const token = newTokenSecret();
      const id = randomId("tok");
      try {
        await tx.savepoint(
          (sp) => sp`
          insert into api_tokens (id, user_id, prefix, token_hash, scopes, capabilities, issued_to, name, expires_at)
          values (${id}, ${user.id}, ${tokenPrefix(token)}, ${tokenHash(token)}, ${scope.scopes}, ${scope.capabilities},
            ${issuedTo}, ${own?.name ?? null}, ${own?.expiresAt ?? null})`,
        );
        return { id, token, prefix: tokenPrefix(token), user_id: user.id, ...scope };
      } catch (error) {
        // A prefix is 8 random base62 characters: a clash is rare, and a new secret resolves it.
        if (!isUniqueViolation(error, "api_tokens_prefix_key")) throw error;
      }
    }
  });
}
