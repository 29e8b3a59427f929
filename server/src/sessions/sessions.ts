import { Scope } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { liveRole } from "../users/live-role.ts";
import type { Principal } from "../users/principal.ts";
import type { User } from "../users/user.ts";
import { readCookie } from "./cookie-header.ts";
import { newSessionSecret, SESSION_COOKIE, SESSION_SECRET_PATTERN, secretHash } from "./session-secret.ts";

/** How long a session lasts from sign-in; signing in again starts a new one. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** last_seen_at is refreshed at most this often, so reading pages is not a write per request. */
const LAST_SEEN_REFRESH_MS = 5 * 60 * 1000;
/** A browser's user agent is kept for the settings page, cut to this length. */
const USER_AGENT_MAX = 512;

/** A live session and the user it signs in. */
export interface Session {
  id: string;
  user: User;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

/** A session as the settings page lists it. */
export interface SessionSummary {
  id: string;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

/**
 * Starts a session for the user and returns its secret (for the cookie; never stored, never
 * logged) with the session. Every sign-in makes a new secret, so a secret planted in a browser
 * before sign-in (session fixation) never becomes signed in; `replacing` (the browser's previous
 * secret, if any) is revoked in the same step.
 */
export async function startSession(
  services: Services,
  input: { userId: string; userAgent?: string | undefined; replacing?: string | null | undefined },
): Promise<{ secret: string; session: Session }> {
  const now = services.clock();
  if (input.replacing) await endSession(services, input.replacing);
  const secret = newSessionSecret();
  const [row] = await services.sql<(SessionRow & { id: string })[]>`
    with inserted as (
      insert into sessions (id, user_id, secret_hash, user_agent, created_at, last_seen_at, expires_at)
      values (${randomId("ses")}, ${input.userId}, ${secretHash(secret)},
        ${input.userAgent ? input.userAgent.slice(0, USER_AGENT_MAX) : null},
        ${now}, ${now}, ${new Date(now.getTime() + SESSION_LIFETIME_MS)})
      returning *)
    select s.id, s.created_at, s.last_seen_at, s.expires_at, u.id as user_id, u.handle, u.is_admin,
      u.created_at as user_created_at
    from inserted s join users u on u.id = s.user_id`;
  return { secret, session: sessionOf(row!) };
}

/**
 * The live session a `Cookie` request header carries, or null: no cookie, a malformed one, or a
 * session unknown, expired or revoked. Refreshes last_seen_at when it is a few minutes old.
 */
export async function currentSession(
  services: Services,
  cookieHeader: string | undefined,
): Promise<Session | null> {
  const secret = sessionSecretOf(cookieHeader);
  if (secret === null) return null;
  const now = services.clock();
  const [row] = await services.sql<SessionRow[]>`
    select s.id, s.created_at, s.last_seen_at, s.expires_at, u.id as user_id, u.handle, u.is_admin,
      u.created_at as user_created_at
    from sessions s join users u on u.id = s.user_id
    where s.secret_hash = ${secretHash(secret)} and s.revoked_at is null and s.expires_at > ${now}`;
  if (!row) return null;
  if (now.getTime() - row.last_seen_at.getTime() >= LAST_SEEN_REFRESH_MS) {
    await services.sql`update sessions set last_seen_at = ${now} where id = ${row.id}`;
    row.last_seen_at = now;
  }
  return sessionOf(row);
}

/** The user a `Cookie` request header signs in, or null (see currentSession). */
export async function signedInUser(
  services: Services,
  cookieHeader: string | undefined,
): Promise<User | null> {
  return (await currentSession(services, cookieHeader))?.user ?? null;
}

/**
 * What a signed-in browser may do, as a Principal: read and contribute, with the capabilities
 * the user holds now (a session is the person at the keyboard, so it is never narrower than
 * their live grants; roles are still checked live by each action).
 */
export async function sessionPrincipal(services: Services, session: Session): Promise<Principal> {
  const live = await liveRole(services.sql, session.user.id);
  return { user: session.user, scopes: [Scope.read, Scope.contribute], capabilities: live.capabilities };
}

/** The session secret in a `Cookie` header when it is well formed, else null. */
export function sessionSecretOf(cookieHeader: string | undefined): string | null {
  const value = readCookie(cookieHeader, SESSION_COOKIE);
  return value !== null && SESSION_SECRET_PATTERN.test(value) ? value : null;
}

/** Signs out one browser: revokes the session its secret names (nothing when none is live). */
export async function endSession(services: Services, secret: string): Promise<void> {
  await services.sql`
    update sessions set revoked_at = ${services.clock()}
    where secret_hash = ${secretHash(secret)} and revoked_at is null`;
}

/** Signs out one of the user's sessions by id (the settings page); false when it was not theirs or not live. */
export async function endSessionById(
  services: Services,
  userId: string,
  sessionId: string,
): Promise<boolean> {
  const rows = await services.sql`
    update sessions set revoked_at = ${services.clock()}
    where id = ${sessionId} and user_id = ${userId} and revoked_at is null returning id`;
  return rows.length > 0;
}

/** Signs the user out everywhere: revokes every live session; returns how many. */
export async function endEverySession(services: Services, userId: string): Promise<number> {
  return revokeSessionsOf(services.sql, userId, services.clock());
}

/** Revokes every live session of a user (sign out everywhere, and an operator's lockout). */
export async function revokeSessionsOf(sql: Sql, userId: string, at: Date): Promise<number> {
  const rows = await sql`
    update sessions set revoked_at = ${at} where user_id = ${userId} and revoked_at is null returning id`;
  return rows.length;
}

/** The user's live sessions, newest first: for the settings page. */
export async function listSessions(services: Services, userId: string): Promise<SessionSummary[]> {
  return services.sql<SessionSummary[]>`
    select id, user_agent, created_at, last_seen_at, expires_at from sessions
    where user_id = ${userId} and revoked_at is null and expires_at > ${services.clock()}
    order by created_at desc limit 100`;
}

interface SessionRow {
  id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  user_id: string;
  handle: string;
  is_admin: boolean;
  user_created_at: Date;
}

function sessionOf(row: SessionRow): Session {
  return {
    id: row.id,
    user: { id: row.user_id, handle: row.handle, is_admin: row.is_admin, created_at: row.user_created_at },
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    expires_at: row.expires_at,
  };
}
