import { setTimeout as sleep } from "node:timers/promises";
import { hostHeaderValidation, originValidation } from "@modelcontextprotocol/fastify";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { authenticate } from "../../users/authenticate.ts";
import { allowedHostnames } from "../http/allowed-hostnames.ts";
import { protectedResourceMetadataUrl } from "../http/protected-resource-metadata.ts";
import { publicBaseUrl } from "../http/request-principal.ts";
import { createServerFactory } from "./create-server-factory.ts";
import { legacyJsonCalls } from "./legacy-json-calls.ts";
import { callerAuthInfo, type McpCaller } from "./mcp-caller.ts";
import type { ResourceTemplate } from "./resources/resource-template.ts";
import { serverPool } from "./server-pool.ts";
import { answerJson } from "./tool-envelope.ts";
import type { Tool } from "./tools/tool.ts";
import { resourceTemplates as registeredTemplates, tools as registeredTools } from "./tools/tools.ts";
import { selectToolsets, TOOLSETS_HEADER, TOOLSETS_PARAMETER, type Toolset } from "./toolsets.ts";

/** The path of the MCP endpoint (spec 4.1). */
export const MCP_PATH = "/mcp";

export interface McpRoutesOptions {
  services: Services;
  /** The tools to serve; default: every tool of the registry. */
  tools?: readonly Tool[];
  /** The resource templates to serve; default: every template of the registry. */
  resourceTemplates?: readonly ResourceTemplate[];
  /** How often an events/stream polls the log; tests shorten it. */
  streamPollMs?: number;
}

/** The content type fastify gives a JSON answer it serializes itself. */
const JSON_TYPE = "application/json; charset=utf-8";

/** How long closing waits for held-open requests (events/stream) to send their last result. */
const CLOSE_GRACE_MS = 5000;

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless. A bearer token is checked
 * before the SDK sees the request (401 with an RFC 9728 challenge otherwise); then the SDK's
 * serving entry answers the 2026-07-28 revision (`server/discover`, per-request envelopes) and,
 * for 2025-era clients, the stateless fallback, each request on an McpServer of its own, taken
 * from a pool of idle ones (serverPool). A 2025-era call that sends nothing before its result
 * (every single request but `initialize` and `events/stream`) is answered with a JSON body by one
 * long-lived McpServer instead (legacyJsonCalls). No state outlives a request, so any replica
 * answers any request; GET and DELETE (session streams and session ends) are answered 405, since there are no
 * sessions. A request held open (events/stream) watches its socket and the token; when the server
 * closes, such requests are told first and given CLOSE_GRACE_MS to end with their result.
 */
export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, options) => {
  const { services, tools = registeredTools, resourceTemplates = registeredTemplates } = options;
  const build = createServerFactory(tools, resourceTemplates);
  const server = serverPool(build);
  const handler = createMcpHandler((context) => server(context.era), {
    onerror: (error) => services.log.warn({ err: error }, "MCP request refused"),
  });
  const jsonCalls = await legacyJsonCalls(build());
  const serve = toNodeHandler(handler, {
    onerror: (error) => services.log.error({ err: error }, "MCP handler failed"),
  });
  const closing = new AbortController();
  const open = new Set<Promise<unknown>>();
  app.addHook("preClose", async () => {
    closing.abort();
    await Promise.race([Promise.allSettled([...open]), sleep(CLOSE_GRACE_MS, undefined, { ref: false })]);
  });
  app.addHook("onClose", async () => {
    await handler.close();
    await jsonCalls.close();
  });

  // DNS-rebinding guards from the SDK's fastify adapter; hooks stay inside this plugin. Their
  // verdict on a Host value depends on nothing else, so a request without Origin whose Host was
  // accepted before skips them (each parses a URL and costs a promise).
  const hostnames = allowedHostnames(services.baseUrl);
  const hostGuard = hostHeaderValidation(hostnames);
  const originGuard = originValidation(hostnames);
  const acceptedHosts = new Set<string>();
  app.addHook("onRequest", (request, reply, done) => {
    const { host, origin } = request.headers;
    if (origin === undefined && host !== undefined && acceptedHosts.has(host)) return done();
    const guarded = async () => {
      await hostGuard.call(app, request, reply);
      if (reply.sent) return;
      if (host !== undefined && acceptedHosts.size < 16) acceptedHosts.add(host);
      await originGuard.call(app, request, reply);
    };
    guarded().then(() => {
      if (!reply.sent) done();
    }, done);
  });

  // Authenticate before the body is read: a caller without a live token costs one lookup.
  const callers = new WeakMap<FastifyRequest, McpCaller>();
  app.addHook("onRequest", async (request, reply) => {
    const header = request.headers.authorization;
    const principal = await authenticate(
      services.sql,
      header,
      `${publicBaseUrl(services, request)}${MCP_PATH}`,
    );
    if (!principal) return unauthorized(services, request, reply, header !== undefined);
    let toolsets: ReadonlySet<Toolset>;
    try {
      const query = request.query as Record<string, string | string[] | undefined>;
      toolsets = selectToolsets(query[TOOLSETS_PARAMETER], request.headers[TOOLSETS_HEADER]);
    } catch (error) {
      return reply.status(400).send((error as ServiceError).toBody());
    }
    const resource = `${publicBaseUrl(services, request)}${MCP_PATH}`;
    const socket = request.raw.socket;
    callers.set(request, {
      services,
      principal,
      baseUrl: publicBaseUrl(services, request),
      requestId: request.id,
      toolsets,
      connection: {
        closing: closing.signal,
        bytesTaken: () => socket.bytesWritten,
        stillAuthorized: async () => (await authenticate(services.sql, header, resource)) !== null,
        ...(options.streamPollMs !== undefined && { pollMs: options.streamPollMs }),
      },
    });
  });

  app.route({
    method: ["POST", "GET", "DELETE"],
    url: MCP_PATH,
    handler: async (request, reply) => {
      const caller = callers.get(request)!;
      const token = request.headers.authorization!.replace(/^bearer\s+/i, "").trim();
      const authInfo = callerAuthInfo(
        caller,
        token,
        protectedResourceMetadataUrl(publicBaseUrl(services, request), MCP_PATH),
      );
      const call =
        request.method === "POST" && (await jsonCalls.takes(request.headers, request.body, authInfo));
      if (call) {
        const exchange = jsonCalls.call(call, authInfo);
        // A caller that goes away mid-call cancels it on the server.
        const gone = () => {
          if (!reply.raw.writableFinished) exchange.cancel();
        };
        reply.raw.once("close", gone);
        open.add(exchange.answer);
        try {
          const answer = await exchange.answer;
          if (answer === undefined) return reply.status(499).send();
          // A tool result goes out with its body encoded once (tool-envelope.ts).
          const json = answerJson(answer, caller);
          return json === undefined ? reply.send(answer) : reply.type(JSON_TYPE).send(json);
        } finally {
          open.delete(exchange.answer);
          reply.raw.off("close", gone);
        }
      }
      // The SDK writes the response itself, streams included, so fastify neither sends nor logs it.
      reply.hijack();
      reply.raw.once("close", () =>
        request.log.info({ res: reply, responseTime: reply.elapsedTime }, "request completed"),
      );
      const served = serve(Object.assign(request.raw, { auth: authInfo }), reply.raw, request.body);
      open.add(served);
      try {
        await served;
      } finally {
        open.delete(served);
      }
    },
  });
};

/**
 * 401 with `WWW-Authenticate: Bearer resource_metadata="..."` (RFC 9728 section 5.1), so a client
 * can discover how to authenticate, and the catalogue's JSON error body. A token that was sent
 * but is unknown or revoked adds `error="invalid_token"` (RFC 6750).
 */
function unauthorized(services: Services, request: FastifyRequest, reply: FastifyReply, sent: boolean) {
  const metadata = protectedResourceMetadataUrl(publicBaseUrl(services, request), MCP_PATH);
  const error = sent
    ? new ServiceError(
        "unauthorized",
        "the bearer token is unknown, malformed, expired, revoked or bound to another resource: sign in again or issue a new one",
      )
    : new ServiceError(
        "unauthorized",
        "/mcp needs `Authorization: Bearer <token>`: an MCP client signs in through the service's OAuth authorization server (WWW-Authenticate names its metadata), or an operator issues one with `svc-server token issue <handle>`",
      );
  const challenge = sent
    ? `Bearer error="invalid_token", resource_metadata="${metadata}"`
    : `Bearer resource_metadata="${metadata}"`;
  return reply.status(401).header("www-authenticate", challenge).send(error.toBody());
}
