import { createHash, randomBytes } from "node:crypto";
import { Capability, Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomChars } from "../core/ids/random-chars.ts";
import type { Caller } from "../users/caller.ts";
import { issueToken } from "../users/issue-token.ts";
import { liveRole } from "../users/live-role.ts";

/** How long a code shown by `svc login --mcp` can be approved and redeemed. */
export const CLI_LOGIN_SECONDS = 10 * 60;
/** How often the command line asks whether the code was approved. */
export const CLI_POLL_SECONDS = 2;
/** Letters and digits nobody confuses (no 0/O, 1/I/L, U/V): 8 of them are about 38 bits. */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789";
const CODE_PATTERN = /^[A-Z2-9]{4}-[A-Z2-9]{4}$/;

const hashOf = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** A started login: the code to show, and the secret to poll with (never shown to anyone). */
export interface StartedCliLogin {
  user_code: string;
  poll_token: string;
  expires_in: number;
  interval: number;
}

/** Starts a `svc login --mcp`: a one-time code for the user, a poll secret for the command line. */
export async function startCliLogin(sql: Sql, input: { client_name: string }): Promise<StartedCliLogin> {
  const clientName = input.client_name.trim();
  if (clientName.length < 1 || clientName.length > 100) {
    throw new ServiceError("invalid_input", "client_name must be 1 to 100 characters", {
      field: "client_name",
    });
  }
  const pollToken = randomBytes(32).toString("base64url");
  for (;;) {
    const code = `${randomChars(CODE_ALPHABET, 4)}-${randomChars(CODE_ALPHABET, 4)}`;
    const [row] = await sql<{ user_code: string }[]>`
      insert into cli_logins (poll_hash, user_code, client_name, expires_at)
      values (${hashOf(pollToken)}, ${code}, ${clientName}, now() + make_interval(secs => ${CLI_LOGIN_SECONDS}))
      on conflict (user_code) do nothing
      returning user_code`;
    if (row)
      return {
        user_code: row.user_code,
        poll_token: pollToken,
        expires_in: CLI_LOGIN_SECONDS,
        interval: CLI_POLL_SECONDS,
      };
  }
}

/**
 * authorize_cli (spec 4.1, 5.6): the connected user approves the code their command line shows.
 * The command line's credential will carry the approver's read/contribute scope plus the
 * capabilities the user holds, never more. `scope` lists them, space-separated.
 */
export async function authorizeCli(
  sql: Sql,
  caller: Caller,
  input: { code: string },
): Promise<{ ok: true; code: string; client_name: string; scope: string }> {
  const code = input.code.trim().toUpperCase().replace(/\s+/g, "");
  const normalized = code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
  if (!CODE_PATTERN.test(normalized)) {
    throw new ServiceError("invalid_input", "code is the XXXX-XXXX code that svc login --mcp shows", {
      field: "code",
    });
  }
  const { user } = caller.principal;
  const scopes = Object.values(Scope).filter((s) => caller.principal.scopes.includes(s));
  const [row] = await sql<{ client_name: string }[]>`
    update cli_logins set approved_by = ${user.id}, approved_at = now(), approved_scopes = ${scopes}
    where user_code = ${normalized} and approved_at is null and expires_at > now()
    returning client_name`;
  if (!row) {
    throw new ServiceError(
      "not_found",
      `no pending svc login shows the code ${normalized} (codes last ${CLI_LOGIN_SECONDS / 60} minutes and are approved once): run svc login --mcp again`,
      { field: "code" },
    );
  }
  const held = (await liveRole(sql, user.id)).capabilities;
  return {
    ok: true,
    code: normalized,
    client_name: row.client_name,
    scope: [...scopes, ...Object.values(Capability).filter((c) => held.includes(c))].join(" "),
  };
}

/** What the polling command line hears: wait, give up, or its token (handed out once). */
export type CliLoginPoll =
  | { status: "pending" }
  | { status: "expired" }
  | { status: "approved"; token: string; scopes: string[]; capabilities: string[] };

/** One poll of a started login, by its poll secret. */
export async function pollCliLogin(sql: Sql, pollToken: string): Promise<CliLoginPoll> {
  return inTransaction(sql, async (tx) => {
    const [row] = await tx<
      {
        approved_by: string | null;
        approved_scopes: string[] | null;
        client_name: string;
        redeemed_at: Date | null;
        live: boolean;
      }[]
    >`
      select approved_by, approved_scopes, client_name, redeemed_at, expires_at > now() as live
      from cli_logins where poll_hash = ${hashOf(pollToken)} for update`;
    if (!row || !row.live || row.redeemed_at) return { status: "expired" };
    if (!row.approved_by) return { status: "pending" };
    const [approver] = await tx<{ handle: string }[]>`select handle from users where id = ${row.approved_by}`;
    const issued = await issueToken(tx, approver!.handle, row.approved_scopes!, row.client_name);
    await tx`update cli_logins set token_id = ${issued.id}, redeemed_at = now() where poll_hash = ${hashOf(pollToken)}`;
    return {
      status: "approved",
      token: issued.token,
      scopes: issued.scopes,
      capabilities: issued.capabilities,
    };
  });
}
