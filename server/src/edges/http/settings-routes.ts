import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { listOAuthGrants, revokeOAuthGrant } from "../../oauth/oauth-grants.ts";
import { endSessionById, listSessions, type Session, sessionPrincipal } from "../../sessions/sessions.ts";
import { listTokens } from "../../users/list-tokens.ts";
import { revokeOwnToken } from "../../users/revoke-token.ts";
import { whoami } from "../../users/whoami.ts";
import { browserSecret, requireSignedIn } from "./browser-session.ts";
import { acceptFormPosts, csrfField } from "./form-posts.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderSettingsPage, SETTINGS_PATHS } from "./pages/render-settings-page.ts";

/** What a revoke button can name, and what `?done=` says afterwards. */
const NOTICES = {
  token: "Token revoked: it is refused from its next request.",
  "oauth-client": "OAuth client revoked: its access and refresh tokens are refused from now on.",
  session: "That browser is signed out.",
} as const;
type Notice = keyof typeof NOTICES;

/** Ids are short ASCII: anything longer or stranger is not one of ours, so it is not found. */
const ID_PATTERN = /^[0-9A-Za-z_-]{1,128}$/;

/**
 * The settings page of a signed-in browser (`GET /settings`) and its revoke buttons:
 * `POST /settings/tokens/{id}/revoke`, `/settings/oauth-clients/{grant}/revoke`,
 * `/settings/sessions/{id}/revoke`. Each is a CSRF-checked form (acceptFormPosts) that acts only on
 * the signed-in user's own credentials (another user's id is not_found) and redirects back with a
 * notice (post/redirect/get, so a reload does not post again).
 */
export const settingsRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  acceptFormPosts(app, services);

  app.get<{ Querystring: { done?: string } }>("/settings", async (request, reply) => {
    const session = await requireSignedIn(services, request, reply);
    if (!session) return reply;
    const principal = await sessionPrincipal(services, session);
    const userId = session.user.id;
    const done = request.query.done;
    reply.header("cache-control", "no-store");
    return sendHtmlPage(
      reply,
      renderSettingsPage(
        {
          whoami: await whoami(services.sql, principal),
          tokens: await listTokens(services.sql, userId),
          oauthClients: await listOAuthGrants(services.sql, userId),
          sessions: await listSessions(services, userId),
          currentSessionId: session.id,
          csrf: csrfField(services, browserSecret(services, request, reply)),
          notice: done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done as Notice] : null,
        },
        { handle: principal.user.handle, path: request.url },
      ),
    );
  });

  revokeRoute(app, services, `${SETTINGS_PATHS.token}/:id/revoke`, "token", (session, id) =>
    revokeOwnToken(services.sql, session.user.id, id),
  );
  revokeRoute(app, services, `${SETTINGS_PATHS.oauthClient}/:id/revoke`, "oauth-client", (session, id) =>
    revokeOAuthGrant(services.sql, session.user.id, id),
  );
  revokeRoute(app, services, `${SETTINGS_PATHS.session}/:id/revoke`, "session", (session, id) =>
    endSessionById(services, session.user.id, id),
  );
};

function revokeRoute(
  app: Parameters<FastifyPluginAsync>[0],
  services: Services,
  path: string,
  notice: Notice,
  revoke: (session: Session, id: string) => Promise<boolean>,
): void {
  app.post<{ Params: { id: string } }>(
    path,
    async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      const session = await requireSignedIn(services, request, reply);
      if (!session) return reply;
      const { id } = request.params;
      if (!ID_PATTERN.test(id) || !(await revoke(session, id))) {
        throw new ServiceError(
          "not_found",
          `you hold no live ${notice.replace("-", " ")} with the id "${id.slice(0, 128)}": reload the settings page`,
          {
            id: id.slice(0, 128),
          },
        );
      }
      return reply.header("cache-control", "no-store").redirect(`/settings?done=${notice}`, 303);
    },
  );
}
