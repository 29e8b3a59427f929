import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Services } from "../../core/services/services.ts";
import { jsonResponse, readErrors } from "../http/api-responses.ts";
import { readCaller } from "../http/read-caller.ts";
import { fromQueryString } from "../inputs/from-query-string.ts";
import { adaptTool } from "./adapt-tool.ts";
import { runTool } from "./call-tool.ts";
import { type Tool, ToolKind } from "./tools/tool.ts";
import { tools as registeredTools } from "./tools/tools.ts";

/** A read tool's `GET /api` path; throws for a read tool that names none (every one must). */
export function apiRouteOf(tool: Tool): string {
  if (tool.apiRoute === undefined) {
    throw new Error(
      `read tool ${tool.name} names no apiRoute: give it its REST path under /api (tools/tool.ts)`,
    );
  }
  return tool.apiRoute;
}

/** The input fields a route takes from its path: its `:field` segments. */
export function pathFieldsOf(route: string): string[] {
  return [...route.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
}

/**
 * `/api` parity (spec 4.1: general reads under `GET /api/*` with the same token; issue 36): every
 * read tool without a hand-written route is served at its `apiRoute`, generated from its
 * definition. The input is the tool's own: the route's `:field` segments from the path, every
 * other field (working_attempt_id included) as a query parameter, a field taking an object as its
 * JSON. The result is the tool's (the same `runTool` as `/mcp`, serialized through its output
 * schema), and so are the refusals (a ServiceError with its HTTP status); the OpenAPI document
 * shows each with the tool's description.
 */
export const toolRoutes: FastifyPluginAsync<{ services: Services; tools?: readonly Tool[] }> = async (
  plain,
  { services, tools = registeredTools },
) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const caller = readCaller(services);
  for (const tool of tools) {
    if (tool.kind !== ToolKind.read || tool.apiRouteByHand) continue;
    const route = apiRouteOf(tool);
    const adapted = adaptTool(tool);
    const shape = adapted.input.shape;
    const inPath = pathFieldsOf(route);
    const unknown = inPath.filter((field) => !Object.hasOwn(shape, field));
    if (unknown.length > 0) {
      throw new Error(
        `${tool.name}'s apiRoute ${route} names ${unknown.join(", ")}, not fields of its input`,
      );
    }
    const pick = Object.fromEntries(inPath.map((field) => [field, true])) as Record<string, true> &
      Record<number, never>;
    app.get(
      route,
      {
        onRequest: caller.onRequest,
        schema: {
          operationId: tool.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
          tags: ["tools"],
          summary: `${tool.title} (${tool.name})`,
          description: `${tool.description} The ${tool.name} tool over HTTP.`,
          ...(inPath.length > 0 && {
            params: fromQueryString(z.strictObject(adapted.input.pick(pick).shape)),
          }),
          querystring: fromQueryString(adapted.input.omit(pick)),
          response: { 200: jsonResponse(`${tool.name}'s result.`, adapted.output), ...readErrors },
        },
      },
      // Through JSON as over /mcp (dates as ISO strings), so both doors answer the same object.
      async (request) => {
        const input = { ...(request.query as object), ...(request.params as object) };
        return JSON.parse(JSON.stringify(await runTool(adapted, caller.of(request), input)));
      },
    );
  }
};
