import type { FastifyPluginAsync } from "fastify";
import type { Services } from "../../core/services/services.ts";
import {
  PROTECTED_RESOURCE_METADATA_PREFIX,
  protectedResourceMetadata,
} from "./protected-resource-metadata.ts";
import { publicBaseUrl } from "./request-principal.ts";

/**
 * RFC 9728 discovery documents, public and readable cross-origin:
 * `/.well-known/oauth-protected-resource/mcp` describes the MCP endpoint (the URL a 401 from
 * /mcp names), and `/.well-known/oauth-protected-resource` describes the whole origin, since
 * RFC 9728 requires `resource` to be the URL the document was fetched for.
 */
export const oauthMetadataRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  for (const path of ["", "/mcp"]) {
    app.get(`${PROTECTED_RESOURCE_METADATA_PREFIX}${path}`, async (request, reply) => {
      reply.header("access-control-allow-origin", "*");
      return protectedResourceMetadata(publicBaseUrl(services, request), path);
    });
  }
};
