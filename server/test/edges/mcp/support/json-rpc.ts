/** The revision spec 4.1 names for `resultType`, `ttlMs` and `cacheScope`. */
export const MODERN_REVISION = "2026-07-28";

/** A JSON-RPC answer as sent over HTTP. */
export interface RpcAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC response message, or the JSON body of a non-JSON-RPC answer (a 401). */
  body: Record<string, unknown> & {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

/**
 * POSTs one JSON-RPC request to /mcp as a 2026-07-28 client does: the per-request `_meta`
 * envelope and the standard headers, no handshake. A null token sends no Authorization.
 */
export function modernRpc(
  url: string,
  token: string | null,
  method: string,
  params: Record<string, unknown> = {},
  extraHeaders: Record<string, string> = {},
): Promise<RpcAnswer> {
  const [headers, message] = modernRequest(method, params);
  return postRpc(url, token, { ...headers, ...extraHeaders }, message);
}

/**
 * modernRpc's request, its whole answer as sent: every server-sent event of a request held open
 * (events/stream), the notifications and the final result.
 */
export async function modernRpcText(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<string> {
  const [headers, message] = modernRequest(method, params);
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify(message),
  });
  return await response.text();
}

function modernRequest(
  method: string,
  params: Record<string, unknown>,
): [Record<string, string>, Record<string, unknown>] {
  const name =
    typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  return [
    {
      "mcp-protocol-version": MODERN_REVISION,
      "mcp-method": method,
      ...(name !== undefined && { "mcp-name": name }),
    },
    {
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
          "io.modelcontextprotocol/clientInfo": { name: "svc-test", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    },
  ];
}

/** POSTs one JSON-RPC request the 2025 way, without `initialize` first (the endpoint is stateless). */
export function legacyRpc(
  url: string,
  token: string | null,
  method: string,
  params: Record<string, unknown> = {},
): Promise<RpcAnswer> {
  return postRpc(url, token, {}, { jsonrpc: "2.0", id: 1, method, params });
}

async function postRpc(
  url: string,
  token: string | null,
  headers: Record<string, string>,
  message: Record<string, unknown>,
): Promise<RpcAnswer> {
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  // 2025-era answers arrive as one server-sent event; 2026-07-28 answers as plain JSON.
  const json = response.headers.get("content-type")?.startsWith("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice("data: ".length))
        .join("")
    : text;
  return { status: response.status, headers: response.headers, body: JSON.parse(json) };
}
