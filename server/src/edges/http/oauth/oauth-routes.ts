import type { IncomingMessage } from "node:http";
import { hostHeaderValidation } from "@modelcontextprotocol/fastify";
import { Capability, Scope } from "@svc/schemas";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Provider } from "oidc-provider";
import { ServiceError } from "../../../core/errors/service-error.ts";
import type { Services } from "../../../core/services/services.ts";
import { liveRole } from "../../../users/live-role.ts";
import type { User } from "../../../users/user.ts";
import { allowedHostnames } from "../allowed-hostnames.ts";
import { sendHtmlPage } from "../html/send-html-page.ts";
import { publicBaseUrl } from "../request-principal.ts";
import { cliLoginRoutes } from "./cli-login-routes.ts";
import { createOAuthProvider, OAUTH_PREFIX } from "./oauth-provider.ts";
import { renderConsentPage } from "./render-consent-page.ts";
import { signedInUser } from "./signed-in-user.ts";

/** Issuers kept at once when SVC_BASE_URL is unset (each request's origin is then the issuer). */
const MAX_ISSUERS = 16;

/** The largest consent form accepted: a decision and a CSRF token. */
const CONSENT_FORM_LIMIT = 4096;

/**
 * The authorization server over HTTP: oidc-provider's endpoints under /oauth (authorize,
 * token, registration, revocation, jwks), its RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server` (and the OpenID name for the same document), and the
 * consent interaction at `/oauth/interaction/:uid`, which needs a signed-in user. One provider per
 * issuer: SVC_BASE_URL, else each request's own origin.
 */
export const oauthRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  // The same DNS-rebinding guard as /mcp: loopback names and SVC_BASE_URL's hostname only.
  app.addHook("onRequest", hostHeaderValidation(allowedHostnames(services.baseUrl)));
  const providers = new Map<string, { provider: Provider; handle: ReturnType<Provider["callback"]> }>();
  const providerFor = (request: FastifyRequest) => {
    const issuer = publicBaseUrl(services, request);
    let entry = providers.get(issuer);
    if (!entry) {
      // Without SVC_BASE_URL each origin is an issuer; a Host header must not mint them without end.
      if (providers.size >= MAX_ISSUERS) {
        throw new ServiceError(
          "invalid_input",
          `too many origins for one authorization server: set SVC_BASE_URL`,
          {
            field: "host",
          },
        );
      }
      const provider = createOAuthProvider(services, issuer);
      entry = { provider, handle: provider.callback() };
      providers.set(issuer, entry);
    }
    return entry;
  };

  /** Hands the request to oidc-provider as if mounted at /oauth: it reads the body itself. */
  const forward = (request: FastifyRequest, reply: FastifyReply, path: string) => {
    const { handle } = providerFor(request);
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    const query = raw.url?.includes("?") ? raw.url.slice(raw.url.indexOf("?")) : "";
    raw.originalUrl = `${OAUTH_PREFIX}${path}${query}`;
    raw.url = `${path}${query}`;
    reply.hijack();
    handle(raw, reply.raw);
  };

  app.register(async (protocol) => {
    // oidc-provider parses its own bodies (forms, JSON): leave the stream unread.
    protocol.removeAllContentTypeParsers();
    protocol.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      protocol.get(path, (request, reply) => forward(request, reply, "/.well-known/openid-configuration"));
    }
    protocol.all(`${OAUTH_PREFIX}/*`, (request, reply) =>
      forward(request, reply, request.url.split("?")[0]!.slice(OAUTH_PREFIX.length)),
    );
  });

  app.register(cliLoginRoutes, { services });

  app.register(async (consent) => {
    consent.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: CONSENT_FORM_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    consent.get<{ Params: { uid: string } }>(`${OAUTH_PREFIX}/interaction/:uid`, async (request, reply) => {
      const { provider } = providerFor(request);
      const details = await provider.interactionDetails(request.raw, reply.raw);
      const signedIn = await signedInUser(services, request, reply);
      if (!signedIn) return reply;
      const decision = await consentDecision(services, provider, details.params, signedIn.user);
      if ("error" in decision) return finish(provider, request, reply, decision);
      const client = await provider.Client.find(details.params.client_id!);
      const redirectUri = details.params.redirect_uri!;
      return sendHtmlPage(
        reply.header("cache-control", "no-store"),
        renderConsentPage({
          uid: details.uid,
          handle: signedIn.user.handle,
          clientName: client?.clientName ?? details.params.client_id!,
          clientId: details.params.client_id!,
          redirectUri,
          resource: decision.resource,
          scopes: decision.scopes,
          csrfToken: signedIn.csrfToken,
        }),
        { formTargets: [new URL(redirectUri).origin, publicBaseUrl(services, request)] },
      );
    });

    consent.post<{ Params: { uid: string }; Body: Record<string, string> | undefined }>(
      `${OAUTH_PREFIX}/interaction/:uid`,
      async (request, reply) => {
        const { provider } = providerFor(request);
        const details = await provider.interactionDetails(request.raw, reply.raw);
        const signedIn = await signedInUser(services, request, reply, request.body?.csrf_token);
        if (!signedIn) return reply;
        if (request.body?.decision !== "approve") {
          return finish(provider, request, reply, {
            error: "access_denied",
            error_description: "the user denied the authorization request",
          });
        }
        const decision = await consentDecision(services, provider, details.params, signedIn.user);
        if ("error" in decision) return finish(provider, request, reply, decision);
        const grant = details.grantId
          ? ((await provider.Grant.find(details.grantId)) ??
            new provider.Grant({ accountId: signedIn.user.id, clientId: details.params.client_id! }))
          : new provider.Grant({ accountId: signedIn.user.id, clientId: details.params.client_id! });
        grant.addResourceScope(decision.resource, decision.scopes.join(" "));
        // The provider also checks the requested scope against its own list: grant the same there.
        const requestedOidc = (details.params.scope ?? "")
          .split(" ")
          .filter((s) => s === "openid" || s === "offline_access" || decision.scopes.includes(s));
        if (requestedOidc.length > 0) grant.addOIDCScope(requestedOidc.join(" "));
        const grantId = await grant.save();
        return finish(provider, request, reply, {
          login: { accountId: signedIn.user.id },
          consent: { grantId },
        });
      },
    );
  });
};

/** Ends the interaction with `result` and sends the browser back into the flow (303 after a POST). */
async function finish(
  provider: Provider,
  request: FastifyRequest,
  reply: FastifyReply,
  result: Record<string, unknown>,
): Promise<FastifyReply> {
  const returnTo = await provider.interactionResult(request.raw, reply.raw, result, {
    mergeWithLastSubmission: false,
  });
  return reply.redirect(returnTo, 303);
}

/**
 * What a grant to `user` holds (spec 5.3): the requested read/contribute, plus every capability
 * the user holds now, never one they lack. A request naming a capability the user does not hold
 * is refused with `invalid_scope` rather than silently narrowed.
 */
async function consentDecision(
  services: Services,
  provider: Provider,
  params: Record<string, string | undefined>,
  user: User,
): Promise<{ resource: string; scopes: string[] } | { error: string; error_description: string }> {
  const requested = (params.scope ?? "").split(" ").filter(Boolean);
  const held = (await liveRole(services.sql, user.id)).capabilities;
  const capabilities = Object.values(Capability) as string[];
  const lacking = requested.filter((s) => capabilities.includes(s) && !(held as string[]).includes(s));
  if (lacking.length > 0) {
    return {
      error: "invalid_scope",
      error_description: `${user.handle} does not hold ${lacking.join(", ")}: request read and/or contribute`,
    };
  }
  const scopes = [...(Object.values(Scope) as string[]).filter((s) => requested.includes(s)), ...held];
  if (!scopes.some((s) => (Object.values(Scope) as string[]).includes(s))) {
    return { error: "invalid_scope", error_description: "request read and/or contribute" };
  }
  return { resource: params.resource ?? `${provider.issuer}/mcp`, scopes };
}
