import {
  McpServer,
  ResourceTemplate as SdkResourceTemplate,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { adaptResourceTemplate } from "./adapt-resource-template.ts";
import { adaptTool } from "./adapt-tool.ts";
import { callTool } from "./call-tool.ts";
import { EVENTS_CAPABILITY, eventsCapability, registerEventMethods } from "./event-methods.ts";
import { listTools } from "./list-tools.ts";
import { callerOf } from "./mcp-caller.ts";
import { readResource } from "./read-resource.ts";
import { resourceError } from "./resource-error.ts";
import type { ResourceTemplate } from "./resources/resource-template.ts";
import { scopeChallenge } from "./scope-challenge.ts";
import type { Tool } from "./tools/tool.ts";

/** The agent tool contract version (spec 9.4), reported as the server's version. */
export const TOOL_CONTRACT_VERSION = "0.22.0";

const INSTRUCTIONS =
  "svc hosts verifiable problems. Every tool result is one JSON object; a failure is a tool error " +
  '{"error": {"code", "message", ...}} whose message says what to fix. Read tools accept an optional ' +
  "working_attempt_id naming your own Attempt; svc:// resource URIs accept a trailing ?working_attempt_id=att_...";

/**
 * Prepares the tools and resource templates once and returns a function that builds an McpServer
 * with all of them registered. Every handler reads its caller from the request it answers (the
 * `authInfo` the /mcp route attached), never from the server, so one server may answer many
 * requests one after another (serverPool) and building one is not a per-request cost.
 */
export function createServerFactory(
  tools: readonly Tool[],
  templates: readonly ResourceTemplate[],
): () => McpServer {
  const adaptedTools = tools.map(adaptTool);
  const adaptedTemplates = templates.map(adaptResourceTemplate);
  for (const names of [tools.map((t) => t.name), templates.map((t) => t.name)]) {
    const duplicate = names.find((name, i) => names.indexOf(name) !== i);
    if (duplicate) throw new Error(`two MCP tools or resource templates are named ${duplicate}`);
  }
  return () => {
    const server = new McpServer(
      { name: "svc", version: TOOL_CONTRACT_VERSION },
      {
        // Stateless: no connection outlives its request, so no list-changed notification is ever sent.
        capabilities: {
          tools: { listChanged: false },
          resources: { listChanged: false },
          experimental: { [EVENTS_CAPABILITY]: eventsCapability },
        },
        instructions: INSTRUCTIONS,
      },
    );
    for (const adapted of adaptedTools) {
      const { tool, inputSchema, outputSchema, annotations } = adapted;
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema,
          outputSchema,
          annotations,
          scopeChallenge: ({ authInfo }) => scopeChallenge(tool, authInfo),
        },
        (args, context) => callTool(adapted, callerOf(context.http?.authInfo), args),
      );
    }
    // Every tool stays registered (a hidden one still answers its refusal when called); the list
    // shows only the caller's chosen toolsets, filtered by scope and live role (listTools).
    server.server.setRequestHandler("tools/list", async (_request, context) => ({
      tools: await listTools(adaptedTools, callerOf(context.http?.authInfo)),
    }));
    for (const { template } of adaptedTemplates) {
      const { list } = template;
      const listed = list
        ? async (context: ServerContext) => {
            const caller = callerOf(context.http?.authInfo);
            try {
              return { resources: await list.call(template, caller) };
            } catch (error) {
              throw resourceError(caller, undefined, error);
            }
          }
        : undefined;
      // Registered for resources/list and resources/templates/list; reads go through readResource.
      server.registerResource(
        template.name,
        new SdkResourceTemplate(template.uriTemplate, { list: listed }),
        { title: template.title, description: template.description },
        (uri, _variables, context) =>
          readResource(adaptedTemplates, callerOf(context.http?.authInfo), uri.href),
      );
    }
    // The SDK's own read handler matches the URI as sent; spec 4.1 strips a trailing
    // working_attempt_id first and echoes the URI unchanged, so reads are answered here.
    // Params are taken as any object (the SDK's own check answers -32603 with its schema dump) and
    // a missing or non-string `uri` is the catalogue's invalid_input, -32602.
    server.server.setRequestHandler("resources/read", { params: z.looseObject({}) }, (params, context) =>
      readResource(adaptedTemplates, callerOf(context.http?.authInfo), params.uri),
    );
    registerEventMethods(server.server);
    return server;
  };
}
