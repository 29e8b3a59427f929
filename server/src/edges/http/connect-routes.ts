import type { FastifyPluginAsync } from "fastify";
import type { Services } from "../../core/services/services.ts";
import { optionalPageCaller } from "./browser-session.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { type ApiOperation, renderConnectPage } from "./pages/render-connect-page.ts";
import { publicBaseUrl } from "./request-principal.ts";

interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string }>;
}

/**
 * `GET /connect`: how to connect an agent or a program (render-connect-page.ts), for anyone. The
 * `/api` list is read from the service's own OpenAPI document, so it cannot drift from the routes.
 */
export const connectRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get("/connect", async (request, reply) => {
    const context = await optionalPageCaller(services, request, reply);
    const document = (
      app as unknown as { swagger(): { paths?: Record<string, Record<string, OpenApiOperation>> } }
    ).swagger();
    const operations: ApiOperation[] = [];
    for (const [path, methods] of Object.entries(document.paths ?? {})) {
      for (const [method, op] of Object.entries(methods)) {
        operations.push({
          method: method.toUpperCase(),
          path,
          summary: op.summary ?? "",
          description: op.description ?? "",
          tag: op.tags?.[0] ?? "other",
          parameters: (op.parameters ?? []).map((p) => ({
            name: p.name,
            in: p.in,
            required: p.required ?? false,
            description: p.description ?? "",
          })),
        });
      }
    }
    reply.header("cache-control", "private, max-age=0");
    return sendHtmlPage(
      reply,
      renderConnectPage(publicBaseUrl(services, request), operations, {
        handle: context?.principal.user.handle ?? null,
        path: request.url,
      }),
    );
  });
};
