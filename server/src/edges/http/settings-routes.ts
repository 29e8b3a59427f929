import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { listOAuthGrants, revokeOAuthGrant } from "../../oauth/oauth-grants.ts";
import { endSessionById, listSessions, type Session, sessionPrincipal } from "../../sessions/sessions.ts";
import { type IssuedToken, issueToken } from "../../users/issue-token.ts";
import { listTokens } from "../../users/list-tokens.ts";
import { revokeOwnToken } from "../../users/revoke-token.ts";
import { whoami } from "../../users/whoami.ts";
import { browserSecret, requireSignedIn } from "./browser-session.ts";
import { acceptFormPosts, csrfField, formOf } from "./form-posts.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import {
  renderSettingsPage,
  SETTINGS_PATHS,
  TOKEN_LIFETIMES,
  TOKEN_SCOPES,
} from "./pages/render-settings-page.ts";

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

  async function sendSettings(
    request: FastifyRequest,
    reply: FastifyReply,
    session: Session,
    notice: string | null,
    created: IssuedToken | null = null,
  ) {
    const principal = await sessionPrincipal(services, session);
    const userId = session.user.id;
    // A new token's secret is on this page only: no cache may keep it.
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
          notice,
          created,
        },
        { handle: principal.user.handle, path: "/settings" },
      ),
    );
  }

  app.get<{ Querystring: { done?: string } }>("/settings", async (request, reply) => {
    const session = await requireSignedIn(services, request, reply);
    if (!session) return reply;
    const done = request.query.done;
    return sendSettings(
      request,
      reply,
      session,
      done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done as Notice] : null,
    );
  });

  /**
   * `POST /settings/tokens`: a token of the signed-in user's own, named, with read or read and
   * contribute scope and an expiry, issued as `svc-server token issue` does (issueToken: it
   * carries the capabilities the user holds now). The secret is shown once, on the page this
   * answers with (not a redirect: it must not travel in a URL), in a read-only field to copy.
   */
  app.post(SETTINGS_PATHS.token, async (request, reply) => {
    const session = await requireSignedIn(services, request, reply);
    if (!session) return reply;
    const form = formOf(request);
    const name = (form.name ?? "").trim();
    if (name.length < 1 || name.length > 100) {
      throw new ServiceError(
        "invalid_input",
        "name: give the token a name of 1 to 100 characters, to tell it apart",
        {
          field: "name",
        },
      );
    }
    const scopes = TOKEN_SCOPES[form.scope as keyof typeof TOKEN_SCOPES];
    if (!scopes) {
      throw new ServiceError("invalid_input", "scope: choose read, or read and contribute", {
        field: "scope",
      });
    }
    const days = TOKEN_LIFETIMES[form.expires as keyof typeof TOKEN_LIFETIMES];
    if (days === undefined) {
      throw new ServiceError(
        "invalid_input",
        `expires: choose one of ${Object.keys(TOKEN_LIFETIMES).join(", ")}`,
        {
          field: "expires",
        },
      );
    }
    const expiresAt = days === null ? null : new Date(services.clock().getTime() + days * 86_400_000);
    const created = await issueToken(services.sql, session.user.handle, scopes, null, { name, expiresAt });
    return sendSettings(request, reply, session, null, created);
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
