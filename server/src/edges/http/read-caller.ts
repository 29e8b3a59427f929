import type { FastifyRequest } from "fastify";
import type { Services } from "../../core/services/services.ts";
import { requireScope } from "../../users/require-scope.ts";
import { publicBaseUrl, type RouteContext, requirePrincipal } from "./request-principal.ts";

/** What a route needs to authenticate a read before its schema looks at the request. */
export interface ReadCaller {
  /** The route's `onRequest` hook: unauthorized or forbidden before any parameter is checked. */
  onRequest(request: FastifyRequest): Promise<void>;
  /** The caller `onRequest` authenticated. */
  of(request: FastifyRequest): RouteContext;
}

/**
 * The bearer token with the read scope, checked in `onRequest` (before fastify validates the
 * parameters against the route's schema), so a caller without a live token learns that first.
 */
export function readCaller(services: Services): ReadCaller {
  const callers = new WeakMap<FastifyRequest, RouteContext>();
  return {
    async onRequest(request) {
      const principal = await requirePrincipal(services, request);
      requireScope(principal, "read");
      callers.set(request, { services, principal, baseUrl: publicBaseUrl(services, request) });
    },
    of(request) {
      const context = callers.get(request);
      if (context === undefined)
        throw new Error(`${request.routeOptions.url} has no readCaller onRequest hook`);
      return context;
    },
  };
}
