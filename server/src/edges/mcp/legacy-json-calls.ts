import type { IncomingHttpHeaders } from "node:http";
import {
  type AuthInfo,
  classifyInboundRequest,
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCRequest,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { type Exchange, ExchangeTransport } from "./exchange-transport.ts";

/**
 * Methods left to the SDK's own serving: `initialize` records the client's identity on the
 * server that answers it, and `events/stream` sends notifications before its result.
 */
const SDK_SERVED_METHODS: ReadonlySet<string> = new Set(["initialize", "events/stream"]);

export interface LegacyJsonCalls {
  /**
   * The request when it is a 2025-era call answered here, else undefined (the SDK's entry
   * answers it, refusals included).
   */
  takes(headers: IncomingHttpHeaders, body: unknown, authInfo: AuthInfo): Promise<JSONRPCRequest | undefined>;
  /** Hands a request `takes` returned to the server. */
  call(request: JSONRPCRequest, authInfo: AuthInfo): Exchange;
  close(): Promise<void>;
}

/**
 * 2025-era calls answered with one JSON body by one long-lived McpServer (issue 36): the SDK's
 * stateless fallback builds a transport per POST, wraps the request and the answer in web
 * `Request`/`Response` objects and streams the answer as SSE; that per-request work was most of
 * the endpoint's CPU. Here the route hands the parsed JSON-RPC request to a server that stays
 * connected to an ExchangeTransport, and sends its answer as JSON, which the 2025 Streamable HTTP
 * transport allows for any POST and every client accepts. Protocol handling (dispatch, schemas,
 * results, errors) stays the SDK's server. Stateless as before: the server keeps nothing of a
 * request (handlers read their caller from its `authInfo`) and never answers `initialize`.
 *
 * Taken: a single JSON-RPC request (not a batch or a notification) of a method other than
 * SDK_SERVED_METHODS, classified 2025-era by the SDK's own `classifyInboundRequest` (or, for the
 * plain request of every 2025-era client, by the same rule without its schemas), whose headers
 * the SDK's transport would accept (Accept naming JSON and SSE, a JSON content type, a supported
 * `MCP-Protocol-Version` if any) and which needs no step-up challenge. Anything else goes to the
 * SDK's entry, which answers it, or refuses it, exactly as it always did.
 */
export async function legacyJsonCalls(server: McpServer): Promise<LegacyJsonCalls> {
  const transport = new ExchangeTransport();
  await server.connect(transport);
  // The supported versions the SDK classifies as 2025-era, asked of the SDK itself once.
  const legacyVersions = new Set(
    transport.supportedProtocolVersions.filter(
      (version) =>
        classifyInboundRequest({
          httpMethod: "POST",
          protocolVersionHeader: version,
          body: { jsonrpc: "2.0", id: 1, method: "ping" },
        }).kind === "legacy",
    ),
  );
  return {
    async takes(headers, body, authInfo) {
      if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
      const { method, id } = body as { method?: unknown; id?: unknown };
      if (typeof method !== "string" || SDK_SERVED_METHODS.has(method)) return undefined;
      if (typeof id !== "string" && typeof id !== "number") return undefined;
      const accept = headers.accept;
      if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
      if (!isJsonContentType(headers["content-type"] ?? null)) return undefined;
      const version = singleHeader(headers["mcp-protocol-version"]);
      if (
        version === null ||
        (version !== undefined && !transport.supportedProtocolVersions.includes(version))
      ) {
        return undefined;
      }
      const mcpMethod = singleHeader(headers["mcp-method"]);
      const mcpName = singleHeader(headers["mcp-name"]);
      if (mcpMethod === null || mcpName === null) return undefined;
      if (!isJSONRPCRequest(body)) return undefined;
      // What classifyInboundRequest answers without being asked (its three message schemas cost
      // more than the rest of the route): a request that is not also a response, names no
      // modern version and claims no modern envelope is 2025-era. Anything else is classified.
      const plainLegacy =
        !("result" in body) &&
        !("error" in body) &&
        (version === undefined || legacyVersions.has(version)) &&
        !claimsEnvelope(body.params);
      if (!plainLegacy) {
        const route = classifyInboundRequest({
          httpMethod: "POST",
          ...(version !== undefined && { protocolVersionHeader: version }),
          ...(mcpMethod !== undefined && { mcpMethodHeader: mcpMethod }),
          ...(mcpName !== undefined && { mcpNameHeader: mcpName }),
          body,
        });
        if (route.kind !== "legacy") return undefined;
      }
      if ((await transport.scopeChallenge?.({ request: body, authInfo })) !== undefined) return undefined;
      return body;
    },
    call: (request, authInfo) => transport.exchange(request, { authInfo }),
    close: () => server.close(),
  };
}

/** Whether request params carry the 2026-07-28 envelope's claim (`_meta` naming a protocol version). */
function claimsEnvelope(params: unknown): boolean {
  if (typeof params !== "object" || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

/** A header's one value; null when it was sent more than once. */
function singleHeader(value: string | string[] | undefined): string | undefined | null {
  return Array.isArray(value) ? null : value;
}
