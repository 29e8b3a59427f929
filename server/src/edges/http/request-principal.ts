import type { FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { authenticate } from "../../users/authenticate.ts";
import type { Caller } from "../../users/caller.ts";
import type { Principal } from "../../users/principal.ts";

/**
 * The caller of an HTTP request from its `Authorization: Bearer` header, or null when there is
 * none. A header that is present but names no live token is refused, not treated as anonymous.
 */
export async function optionalPrincipal(
  services: Services,
  request: FastifyRequest,
): Promise<Principal | null> {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const principal = await authenticate(services.sql, header);
  if (!principal) {
    throw new ServiceError(
      "unauthorized",
      "the bearer token is unknown, malformed or revoked: issue a new one",
    );
  }
  return principal;
}

/** The caller of an HTTP request; unauthorized without a live bearer token. */
export async function requirePrincipal(services: Services, request: FastifyRequest): Promise<Principal> {
  const principal = await optionalPrincipal(services, request);
  if (!principal) {
    throw new ServiceError(
      "unauthorized",
      "this route needs `Authorization: Bearer <token>`: run `svc-server token issue`",
    );
  }
  return principal;
}

/** The public base address for links in a response: SVC_BASE_URL, else the request's own origin. */
export function publicBaseUrl(services: Services, request: FastifyRequest): string {
  return services.baseUrl ?? `${request.protocol}://${request.host}`;
}

/** What a route hands the domain: the services and the request's Caller, in one object. */
export interface RouteContext extends Caller {
  services: Services;
}
