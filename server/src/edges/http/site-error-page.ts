import type { FastifyRequest } from "fastify";
import type { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { currentSession } from "../../sessions/sessions.ts";
import type { Html } from "./html/html.ts";
import { renderErrorPage } from "./pages/render-error-page.ts";

/**
 * The page a refusal shows a browser: the error in the site frame, for whoever is signed in (as
 * nobody when the session cannot be read, e.g. the database is what failed).
 */
export function siteErrorPage(services: Services) {
  return async (request: FastifyRequest, error: ServiceError): Promise<Html> => {
    const session = await currentSession(services, request.headers.cookie).catch(() => null);
    return renderErrorPage(error.code, error.message, {
      handle: session?.user.handle ?? null,
      path: request.url,
    });
  };
}
