import type { FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../../core/errors/service-error.ts";
import type { Services } from "../../../core/services/services.ts";
import { csrfToken, isCsrfToken } from "../../../sessions/csrf.ts";
import { sessionSecretOf } from "../../../sessions/sessions.ts";
import type { User } from "../../../users/user.ts";
import { requireSignedIn } from "../browser-session.ts";
import { optionalPrincipal } from "../request-principal.ts";

/** The person at the consent page, and the CSRF token their form must carry back. */
export interface SignedInUser {
  user: User;
  /** The session's CSRF token; none for a bearer caller, whose credential no other site can send. */
  csrfToken: string | undefined;
}

/**
 * Who is at the consent page: the signed-in browser session (a GET without one is redirected to
 * sign-in and back; a POST must carry the session's CSRF token), or the bearer header of a
 * program. null means a response (the redirect) has been sent.
 */
export async function signedInUser(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  postedCsrfToken?: string,
): Promise<SignedInUser | null> {
  const principal = await optionalPrincipal(services, request);
  if (principal) return { user: principal.user, csrfToken: undefined };
  const session = await requireSignedIn(services, request, reply);
  if (!session) return null;
  const secret = sessionSecretOf(request.headers.cookie)!;
  if (request.method === "POST" && !isCsrfToken(services, secret, postedCsrfToken)) {
    throw new ServiceError(
      "csrf_failed",
      "this consent was not sent from this service's own page in this browser (its CSRF token is missing or wrong): reload the page and decide again",
    );
  }
  return { user: session.user, csrfToken: csrfToken(services, secret) };
}
