import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { GitHubSignInSettings } from "../../core/services/github-sign-in-settings.ts";
import type { Services } from "../../core/services/services.ts";
import {
  finishGitHubSignIn,
  GITHUB_CALLBACK_PATH,
  type GitHubCallback,
  startGitHubSignIn,
} from "../../sessions/github-sign-in.ts";
import { safeReturnTo } from "../../sessions/return-to.ts";
import {
  currentSession,
  endEverySession,
  endSession,
  sessionSecretOf,
  startSession,
} from "../../sessions/sessions.ts";
import { redeemSignInLink, SIGN_IN_LINK_TOKEN_PATTERN } from "../../sessions/sign-in-links.ts";
import { browserSecret, clearSessionCookie, requireSignedIn, setSessionCookie } from "./browser-session.ts";
import { acceptFormPosts, csrfField, formOf } from "./form-posts.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderSignInLinkPage, renderSignInPage } from "./pages/render-sign-in-pages.ts";
import { publicBaseUrl } from "./request-principal.ts";

/** Where a browser lands after signing in when it named no safe return_to. */
export const AFTER_SIGN_IN = "/settings";

/**
 * Browser sign-in and sign-out (docs/security.md):
 *
 * - `GET /sign-in?return_to=<path>`: the sign-in page (or straight back when already signed in);
 * - `GET /sign-in/link/{token}`: a one-time link's confirm page; `POST /sign-in/link` uses it;
 * - `GET /sign-in/github?return_to=<path>` sends the browser to GitHub; GitHub sends it back to
 *   `GET /sign-in/github/callback` (when SVC_GITHUB_CLIENT_ID is set);
 * - `POST /sign-out`: ends this browser's session; `POST /sign-out/everywhere`: every session of
 *   the user.
 *
 * Every POST here is a form checked for its CSRF token (acceptFormPosts).
 */
export const signInRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  acceptFormPosts(app, services);

  app.get<{ Querystring: { return_to?: string } }>("/sign-in", async (request, reply) => {
    const returnTo = safeReturnTo(request.query.return_to);
    reply.header("cache-control", "no-store");
    if (await currentSession(services, request.headers.cookie)) {
      return reply.redirect(returnTo ?? AFTER_SIGN_IN, 303);
    }
    return sendHtmlPage(reply, renderSignInPage({ returnTo, github: services.githubSignIn !== undefined }));
  });

  app.get<{ Querystring: { return_to?: string } }>("/sign-in/github", async (request, reply) => {
    const github = requireGitHub(services);
    const location = await startGitHubSignIn(services, github, {
      browserSecret: browserSecret(services, request, reply),
      baseUrl: publicBaseUrl(services, request),
      returnTo: safeReturnTo(request.query.return_to),
    });
    return reply.header("cache-control", "no-store").redirect(location, 303);
  });

  app.get<{ Querystring: GitHubCallback }>(GITHUB_CALLBACK_PATH, async (request, reply) => {
    const github = requireGitHub(services);
    const query = request.query;
    const { userId, returnTo } = await finishGitHubSignIn(services, github, {
      callback: {
        code: stringOrUndefined(query.code),
        state: stringOrUndefined(query.state),
        error: stringOrUndefined(query.error),
      },
      browserSecret: sessionSecretOf(request.headers.cookie),
      baseUrl: publicBaseUrl(services, request),
    });
    return signIn(services, request, reply, userId, returnTo);
  });

  app.get<{ Params: { token: string } }>("/sign-in/link/:token", async (request, reply) => {
    const token = request.params.token;
    if (!SIGN_IN_LINK_TOKEN_PATTERN.test(token)) {
      throw new ServiceError("sign_in_link_invalid", "this is not a sign-in link: copy the whole address");
    }
    const secret = browserSecret(services, request, reply);
    reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
    return sendHtmlPage(reply, renderSignInLinkPage({ token, csrf: csrfField(services, secret) }));
  });

  app.post("/sign-in/link", async (request, reply) => {
    const { userId, returnTo } = await redeemSignInLink(services, formOf(request).token);
    return signIn(services, request, reply, userId, returnTo);
  });

  app.post("/sign-out", async (request, reply) => {
    const secret = sessionSecretOf(request.headers.cookie);
    if (secret !== null) await endSession(services, secret);
    clearSessionCookie(services, request, reply);
    return reply.redirect("/sign-in", 303);
  });

  app.post("/sign-out/everywhere", async (request, reply) => {
    const session = await requireSignedIn(services, request, reply);
    if (!session) return reply;
    await endEverySession(services, session.user.id);
    clearSessionCookie(services, request, reply);
    return reply.redirect("/sign-in", 303);
  });
};

function requireGitHub(services: Services): GitHubSignInSettings {
  if (services.githubSignIn) return services.githubSignIn;
  throw new ServiceError(
    "not_found",
    "Sign in with GitHub is not configured on this service (SVC_GITHUB_CLIENT_ID): use a one-time sign-in link from an operator",
  );
}

/** A repeated query parameter arrives as an array: only a single string counts. */
function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Signs the browser in as `userId`: a new session with a new secret (the browser's previous one
 * revoked), the cookie set, and a redirect to `returnTo` (a path checked again here) or settings.
 */
export async function signIn(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  returnTo: string | null,
): Promise<FastifyReply> {
  const { secret } = await startSession(services, {
    userId,
    userAgent: request.headers["user-agent"],
    replacing: sessionSecretOf(request.headers.cookie),
  });
  setSessionCookie(services, request, reply, secret);
  return reply.header("cache-control", "no-store").redirect(safeReturnTo(returnTo) ?? AFTER_SIGN_IN, 303);
}
