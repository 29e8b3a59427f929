import type { FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../../core/errors/service-error.ts";
import type { Services } from "../../../core/services/services.ts";
import type { User } from "../../../users/user.ts";
import { optionalPrincipal } from "../request-principal.ts";

/** The person at the consent page, and the CSRF token their form must carry back. */
export interface SignedInUser {
  user: User;
  csrfToken: string | undefined;
}

/**
 * Who is at the consent page. Until browser sessions exist this accepts the bearer header only;
 * null means a response (the refusal) has been sent.
 */
export async function signedInUser(
  services: Services,
  request: FastifyRequest,
  _reply: FastifyReply,
  _postedCsrfToken?: string,
): Promise<SignedInUser | null> {
  const principal = await optionalPrincipal(services, request);
  if (!principal) throw new ServiceError("unauthorized", "sign in to approve this client");
  return { user: principal.user, csrfToken: undefined };
}
