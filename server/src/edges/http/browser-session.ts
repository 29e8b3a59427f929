import type { FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { safeReturnTo } from "../../sessions/return-to.ts";
import { newSessionSecret, SESSION_COOKIE } from "../../sessions/session-secret.ts";
import {
  currentSession,
  SESSION_LIFETIME_MS,
  type Session,
  sessionPrincipal,
  sessionSecretOf,
} from "../../sessions/sessions.ts";
import type { Principal } from "../../users/principal.ts";
import { requireScope } from "../../users/require-scope.ts";
import { prefersJson } from "./prefers-json.ts";
import { optionalPrincipal, publicBaseUrl, type RouteContext } from "./request-principal.ts";

/** A pre-sign-in cookie (it only binds CSRF tokens and GitHub's `state` to this browser) lasts a day. */
const PRE_SIGN_IN_MAX_AGE_S = 24 * 60 * 60;

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (other sites' POSTs and
 * subrequests do not carry it), Path=/, and Secure when the service's public address is https.
 */
export function sessionCookie(
  services: Services,
  request: FastifyRequest,
  value: string,
  maxAgeSeconds: number,
): string {
  const secure = publicBaseUrl(services, request).startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** Puts a new session's secret in the browser's cookie. */
export function setSessionCookie(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string,
) {
  reply.header(
    "set-cookie",
    sessionCookie(services, request, secret, Math.floor(SESSION_LIFETIME_MS / 1000)),
  );
}

/** Removes the session cookie (sign out). */
export function clearSessionCookie(services: Services, request: FastifyRequest, reply: FastifyReply) {
  reply.header("set-cookie", sessionCookie(services, request, "", 0));
}

/**
 * The secret in this browser's session cookie; when it has none, a new random one is set as a
 * pre-sign-in cookie (never stored server-side). Pages with forms call this before rendering, so
 * the CSRF token they embed matches what the POST will carry.
 */
export function browserSecret(services: Services, request: FastifyRequest, reply: FastifyReply): string {
  const existing = sessionSecretOf(request.headers.cookie);
  if (existing !== null) return existing;
  const secret = newSessionSecret();
  reply.header("set-cookie", sessionCookie(services, request, secret, PRE_SIGN_IN_MAX_AGE_S));
  return secret;
}

/** `/sign-in?return_to=<this request's path>`, the way back preserved when it is safe. */
export function signInLocation(request: FastifyRequest): string {
  const back = safeReturnTo(request.url);
  return back === null || back.startsWith("/sign-in")
    ? "/sign-in"
    : `/sign-in?return_to=${encodeURIComponent(back)}`;
}

/**
 * The signed-in session of a browser request, or null after answering it: a browser is
 * redirected (303) to `/sign-in?return_to=<path>` and comes back once signed in; a client that
 * asks for JSON gets 401. Use: `const session = await requireSignedIn(services, request, reply);
 * if (!session) return reply;`.
 */
export async function requireSignedIn(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Session | null> {
  const session = await currentSession(services, request.headers.cookie);
  if (session) return session;
  answerSignedOut(request, reply);
  return null;
}

/**
 * The caller of a form POST: the browser's session only (a bearer token reads pages but does not
 * post their forms), with contribute scope as the write tools require; null once answered.
 */
export async function formPrincipal(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Principal | null> {
  const session = await requireSignedIn(services, request, reply);
  if (!session) return null;
  const principal = await sessionPrincipal(services, session);
  requireScope(principal, "contribute");
  return principal;
}

/**
 * The caller of a page that takes either credential: `Authorization: Bearer` when the request
 * has one (an unknown token is refused, as on /api), else the browser's session. With neither
 * the request is answered as requireSignedIn does and null returned. Read scope is required.
 */
export async function pageCaller(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<RouteContext | null> {
  const principal = await bearerOrSession(services, request);
  if (!principal) {
    answerSignedOut(request, reply);
    return null;
  }
  requireScope(principal, "read");
  return { services, principal, baseUrl: publicBaseUrl(services, request) };
}

/**
 * The caller of a page that visitors may also read (Explore, a listed Problem): the bearer
 * token's principal or the session's, else null for a visitor who is not signed in. A bearer
 * token that is not valid is still refused, as on /api.
 */
export async function optionalPageCaller(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<RouteContext | null> {
  reply.header("vary", "cookie, authorization");
  const principal = await bearerOrSession(services, request);
  if (!principal) return null;
  requireScope(principal, "read");
  return { services, principal, baseUrl: publicBaseUrl(services, request) };
}

/** The bearer token's principal when the request has one (an unknown token is refused), else the session's. */
async function bearerOrSession(services: Services, request: FastifyRequest): Promise<Principal | null> {
  const principal = await optionalPrincipal(services, request);
  if (principal) return principal;
  const session = await currentSession(services, request.headers.cookie);
  return session ? sessionPrincipal(services, session) : null;
}

function answerSignedOut(request: FastifyRequest, reply: FastifyReply): void {
  if (prefersJson(request.headers.accept)) {
    reply
      .status(401)
      .send(
        new ServiceError(
          "unauthorized",
          "sign in, or send `Authorization: Bearer <token>` (run `svc-server token issue`)",
        ).toBody(),
      );
    return;
  }
  reply.header("cache-control", "no-store").redirect(signInLocation(request), 303);
}
