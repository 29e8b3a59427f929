import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Services } from "../../core/services/services.ts";
import { jsonResponse, readErrors } from "../http/api-responses.ts";
import { readCaller } from "../http/read-caller.ts";
import { fromQueryString } from "../inputs/from-query-string.ts";
import { adaptTool } from "./adapt-tool.ts";
import { runTool } from "./call-tool.ts";
import { type Tool, ToolKind } from "./tools/tool.ts";
import { tools as registeredTools } from "./tools/tools.ts";

/** Where a read tool without a hand-written route is served over HTTP. */
export const TOOL_ROUTE_PREFIX = "/api/tools/";

/** The `GET /api` route of a read tool: its hand-written one, or `/api/tools/<name>`. */
export function apiRouteOf(tool: Tool): string {
  return tool.apiRoute ?? `${TOOL_ROUTE_PREFIX}${tool.name}`;
}

/**
 * `/api` parity (spec 4.1: general reads under `GET /api/*` with the same token; issue 36): every
 * read tool without a hand-written route is served at `GET /api/tools/<name>`, generated from its
 * definition. The input is the tool's own (its fields as query parameters, working_attempt_id
 * included), the result is the tool's (the same `runTool` as `/mcp`, serialized through its
 * output schema), and so are the refusals (a ServiceError with its HTTP status); the OpenAPI
 * document shows each with the tool's description.
 */
export const toolRoutes: FastifyPluginAsync<{ services: Services; tools?: readonly Tool[] }> = async (
  plain,
  { services, tools = registeredTools },
) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const caller = readCaller(services);
  for (const tool of tools) {
    if (tool.kind !== ToolKind.read || tool.apiRoute !== undefined) continue;
    const adapted = adaptTool(tool);
    app.get(
      apiRouteOf(tool),
      {
        onRequest: caller.onRequest,
        schema: {
          operationId: tool.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
          tags: ["tools"],
          summary: `${tool.title} (${tool.name})`,
          description: `${tool.description} The ${tool.name} tool over HTTP: its input as query parameters.`,
          querystring: fromQueryString(adapted.input),
          response: { 200: jsonResponse(`${tool.name}'s result.`, adapted.output), ...readErrors },
        },
      },
      // Through JSON as over /mcp (dates as ISO strings), so both doors answer the same object.
      async (request) =>
        JSON.parse(JSON.stringify(await runTool(adapted, caller.of(request), request.query))),
    );
  }
};
