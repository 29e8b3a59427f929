import Fastify from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import { httpRequestDuration, httpRequests } from "../../core/metrics/metrics.ts";
import type { Services } from "../../core/services/services.ts";
import { trace, tracingEnabled } from "../../core/tracing/tracing.ts";
import { accessRoutes } from "../http/access-routes.ts";
import { accountRoutes } from "../http/account-routes.ts";
import { adminRoutes } from "../http/admin-routes.ts";
import { apiRoutes } from "../http/api-routes.ts";
import { attestationRoutes } from "../http/attestation-routes.ts";
import { connectRoutes } from "../http/connect-routes.ts";
import { dashboardRoutes } from "../http/dashboard-routes.ts";
import { docsRoutes } from "../http/docs-routes.ts";
import { downloadRoutes } from "../http/download-routes.ts";
import { draftRoutes } from "../http/draft-routes.ts";
import { siteAwareErrorHandler } from "../http/error-handler.ts";
import { healthRoutes } from "../http/health-routes.ts";
import { oauthRoutes } from "../http/oauth/oauth-routes.ts";
import { oauthMetadataRoutes } from "../http/oauth-metadata-routes.ts";
import { participationRoutes } from "../http/participation-routes.ts";
import { protectedResourceMetadataUrl } from "../http/protected-resource-metadata.ts";
import { registerOpenApi } from "../http/register-openapi.ts";
import { installRequestGuards } from "../http/request-guards.ts";
import { requestLogLine } from "../http/request-log.ts";
import { publicBaseUrl } from "../http/request-principal.ts";
import { reviewRoutes } from "../http/review-routes.ts";
import { settingsRoutes } from "../http/settings-routes.ts";
import { signInRoutes } from "../http/sign-in-routes.ts";
import { siteRoutes } from "../http/site-routes.ts";
import { tracedServer } from "../http/traced-server.ts";
import { unusedConnections } from "../http/unused-connections.ts";
import { uploadRoutes } from "../http/upload-routes.ts";
import { verificationRoutes } from "../http/verification-routes.ts";
import { workAuditRoutes } from "../http/work-audit-routes.ts";
import { workRoutes } from "../http/work-routes.ts";
import { MCP_PATH, mcpRoutes } from "../mcp/mcp-routes.ts";
import { toolRoutes } from "../mcp/tool-routes.ts";

/**
 * The HTTP application, not yet listening: `serve` calls `listen`, tests call `inject`. Each
 * group of routes is a fastify plugin registered here with the dependencies it needs.
 */
export interface BuildAppOptions {
  /** True once the process is shutting down: /healthz answers 503 so a load balancer stops sending. */
  draining?: () => boolean;
}

export function buildApp(services: Services, options: BuildAppOptions = {}) {
  const { sql, log } = services;
  const app = Fastify({
    // Every request's log line leaves out query values and secret path segments (request-log.ts):
    // the serializer is set once on the app's logger, so each request's child inherits it (a child
    // given serializers of its own costs more, on every request).
    loggerInstance: log.child({}, { serializers: { req: requestLogLine } }),
    // Stop keep-alive connections that are idle when the server closes; busy ones finish first.
    forceCloseConnections: "idle",
    return503OnClosing: true,
    ...(tracingEnabled() ? { serverFactory: tracedServer } : {}),
  });
  // Requests already running when close begins finish, but their keep-alive connections would
  // hold the close open until they time out: answer them with `Connection: close`.
  // Connections that never sent a request would hold it open as well.
  let closing = false;
  const endUnusedConnections = unusedConnections(app.server);
  app.addHook("preClose", async () => {
    closing = true;
    endUnusedConnections();
  });
  // Hooks on every request take fastify's callback form: an async one costs a promise and a
  // microtask turn per request.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    // Every 401 says how to authenticate (RFC 6750, RFC 9728): /api and /dl as well as /mcp,
    // which sets its own challenge naming its own metadata.
    if (reply.statusCode === 401 && !reply.hasHeader("www-authenticate")) {
      const metadata = protectedResourceMetadataUrl(publicBaseUrl(services, request), "");
      reply.header("www-authenticate", `Bearer resource_metadata="${metadata}"`);
    }
    done(null, payload);
  });
  // Metrics by route template (bounded), never by the URL a client sent.
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    httpRequests.labels(request.method, route, String(reply.statusCode)).inc();
    httpRequestDuration.labels(request.method, route).observe(reply.elapsedTime / 1000);
    // The request's span (traced-server.ts) is named after its route, like its metrics.
    trace.getActiveSpan()?.updateName(`${request.method} ${route}`).setAttribute("http.route", route);
    done();
  });
  // Browsers get the site's error page, programs the JSON form (error-handler.ts).
  const answerError = siteAwareErrorHandler(services);
  app.setErrorHandler(answerError);
  installRequestGuards(app, [MCP_PATH]);
  app.setNotFoundHandler((request, reply) =>
    answerError(
      new ServiceError("not_found", `no route ${request.method} ${request.url.split("?")[0]}`),
      request,
      reply,
    ),
  );
  registerOpenApi(app);
  app.register(healthRoutes, { sql, draining: options.draining });
  app.register(apiRoutes, { services });
  app.register(toolRoutes, { services });
  app.register(attestationRoutes, { services });
  app.register(accountRoutes, { services });
  app.register(downloadRoutes, { services });
  app.register(docsRoutes);
  app.register(mcpRoutes, { services });
  app.register(oauthMetadataRoutes, { services });
  app.register(oauthRoutes, { services });
  app.register(uploadRoutes, { services });
  app.register(verificationRoutes, { services });
  app.register(reviewRoutes, { services });
  app.register(adminRoutes, { services });
  app.register(signInRoutes, { services });
  app.register(settingsRoutes, { services });
  app.register(siteRoutes, { services });
  app.register(dashboardRoutes, { services });
  app.register(participationRoutes, { services });
  app.register(connectRoutes, { services });
  app.register(accessRoutes, { services });
  app.register(workAuditRoutes, { services });
  app.register(workRoutes, { services });
  app.register(draftRoutes, { services });
  return app;
}

/** The application `buildApp` returns. */
export type App = ReturnType<typeof buildApp>;
