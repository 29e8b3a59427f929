import Fastify from "fastify";
import type { Services } from "../../../../src/core/services/services.ts";
import { buildApp } from "../../../../src/edges/cli/build-app.ts";
import { errorHandler } from "../../../../src/edges/http/error-handler.ts";
import { oauthMetadataRoutes } from "../../../../src/edges/http/oauth-metadata-routes.ts";
import { type McpRoutesOptions, mcpRoutes } from "../../../../src/edges/mcp/mcp-routes.ts";

/** A listening app and its address. */
export interface RunningApp {
  url: string;
  close(): Promise<void>;
}

/** The whole service, listening on a free loopback port. */
export async function startApp(services: Services): Promise<RunningApp> {
  const app = buildApp(services);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url, close: () => app.close() };
}

/**
 * Only /mcp and the metadata routes, serving the given tools and templates instead of the
 * registry's: for adapter behaviour no registered tool exercises yet.
 */
export async function startMcpApp(options: McpRoutesOptions): Promise<RunningApp> {
  const app = Fastify({ loggerInstance: options.services.log });
  app.setErrorHandler(errorHandler);
  app.register(mcpRoutes, options);
  app.register(oauthMetadataRoutes, { services: options.services });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url, close: () => app.close() };
}
