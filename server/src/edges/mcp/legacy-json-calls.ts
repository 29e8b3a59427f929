import {
  type AuthInfo,
  isLegacyRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** Methods whose answer may carry notifications before its result, so they keep an SSE stream. */
const STREAMED_METHODS: ReadonlySet<string> = new Set(["events/stream"]);

interface CallOptions {
  authInfo?: AuthInfo;
  parsedBody?: unknown;
}

/**
 * Whether a 2025-era request is answered with one JSON body instead of an SSE stream: a single
 * JSON-RPC request (not a batch or a notification) whose method sends nothing before its result,
 * that is every method but events/stream. The 2025 Streamable HTTP transport lets a server answer
 * a POST either way and every client accepts both; no tool here sends a notification mid-call.
 */
export async function answersWithJson(request: Request, options: CallOptions): Promise<boolean> {
  const body = options.parsedBody;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== "string" || STREAMED_METHODS.has(method) || id === undefined) return false;
  return isLegacyRequest(request, body);
}

/**
 * The SDK's stateless legacy serving (its `legacyStatelessFallback`: a pooled McpServer connected
 * to a fresh transport for one POST, torn down after it) with `enableJsonResponse`, for the
 * requests `answersWithJson` picks. The SDK's fallback always streams, and an SSE response costs
 * both ends a stream per call: framing, a wrapped body stream and the client's event parser.
 * Protocol handling stays the SDK's transport and server.
 */
export function legacyJsonCalls(
  server: () => McpServer,
  onerror: (error: Error) => void,
): (request: Request, options: CallOptions) => Promise<Response> {
  return async (request, options) => {
    const product = server();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // A caller that goes away mid-call ends the exchange, as in the SDK's fallback. A JSON answer
    // that will never come would otherwise be awaited forever: the race answers 499 instead, and
    // the teardown below ends the exchange.
    let gone: () => void = () => {};
    const aborted = new Promise<Response>((resolve) => {
      gone = () => resolve(new Response(null, { status: 499 }));
    });
    request.signal.addEventListener("abort", gone, { once: true });
    try {
      await product.connect(transport);
      return await Promise.race([transport.handleRequest(request, options), aborted]);
    } catch (error) {
      onerror(error instanceof Error ? error : new Error(String(error)));
      const { id } = options.parsedBody as { id?: unknown };
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: id ?? null },
        { status: 500 },
      );
    } finally {
      request.signal.removeEventListener("abort", gone);
      transport.close().catch(() => {});
      product.close().catch(() => {});
    }
  };
}
