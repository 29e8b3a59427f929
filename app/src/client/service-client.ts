import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { TransportCode } from "@svc/schemas";
import { httpError, ServiceCallError, toolError } from "./service-call-error.ts";

/** Client deadlines (spec section 8, CLI retries): 180 s per call, 300 s for the archive PUT. */
export const CALL_DEADLINE_MS = 180_000;
export const PUT_DEADLINE_MS = 300_000;

/** A tool result: the one JSON envelope of the text content. */
export type Envelope = Record<string, unknown>;

/** The service as the CLI uses it: agent tools over MCP and the signed archive PUT. */
export interface ServiceClient {
  /** Calls one tool; resolves to its envelope or rejects with a ServiceCallError. */
  callTool(name: string, input?: Record<string, unknown>): Promise<Envelope>;
  /** PUTs an archive to a signed upload URL (relative URLs resolve against the server). */
  putUpload(url: string, bytes: Uint8Array): Promise<void>;
  /**
   * Starts opening the session now, without waiting for it, so its round trips overlap local
   * work (`svc draft` lints meanwhile). A failure is not reported here: the first call meets it.
   */
  openEarly?(): void;
  close(): Promise<void>;
}

export interface ServiceClientOptions {
  /** The service's base address, no trailing slash; MCP is at `<server>/mcp`. */
  server: string;
  token: string;
  fetch?: typeof globalThis.fetch;
  callDeadlineMs?: number;
  putDeadlineMs?: number;
}

/**
 * Opens a client of the service: an MCP Client over Streamable HTTP with `Authorization: Bearer`,
 * connected on the first call. A transient failure drops the connection so the next call (a
 * retry) starts a fresh session rather than reusing one the server may have lost.
 */
export function openServiceClient(options: ServiceClientOptions): ServiceClient {
  const server = options.server.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const callDeadline = options.callDeadlineMs ?? CALL_DEADLINE_MS;
  const putDeadline = options.putDeadlineMs ?? PUT_DEADLINE_MS;
  let connection: Promise<Client> | null = null;

  const connect = (signal: AbortSignal): Promise<Client> => {
    connection ??= (async () => {
      const client = new Client({ name: "svc-cli", version: "0.1.0" });
      const transport = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${options.token}` } },
        fetch: fetchImpl,
      });
      await client.connect(transport, { signal, timeout: callDeadline });
      return client;
    })();
    return connection;
  };
  const reset = async () => {
    const open = connection;
    connection = null;
    await open?.then((client) => client.close()).catch(() => {});
  };

  return {
    async callTool(name, input = {}) {
      const signal = AbortSignal.timeout(callDeadline);
      try {
        const client = await connect(signal);
        const result = await client.callTool(
          { name, arguments: input },
          { signal, timeout: callDeadline, maxTotalTimeout: callDeadline },
        );
        const envelope = readEnvelope(result);
        if (result.isError) throw toolError(envelope);
        if (!envelope || typeof envelope !== "object" || Array.isArray(envelope)) {
          throw new ServiceCallError(TransportCode.invalid_response, `${name} returned no JSON envelope`, {
            transient: false,
          });
        }
        return envelope as Envelope;
      } catch (error) {
        const failure = classify(error, `the service (${server}/mcp, tool ${name})`, signal);
        if (failure.transient) await reset();
        throw failure;
      }
    },

    async putUpload(url, bytes) {
      const target = new URL(url, `${server}/`);
      const signal = AbortSignal.timeout(putDeadline);
      let response: Response;
      try {
        // No bearer: the signed URL is the capability, and it may point at another host.
        response = await fetchImpl(target, {
          method: "PUT",
          body: bytes,
          headers: { "content-type": "application/zip" },
          signal,
        });
      } catch (error) {
        throw classify(error, `the upload PUT to ${target.origin}`, signal);
      }
      if (!response.ok) {
        const failure = httpError(response.status, await response.text().catch(() => ""), "the upload PUT");
        const retryAfter = Number(response.headers.get("retry-after"));
        if (Number.isFinite(retryAfter) && retryAfter > 0) failure.details.retry_after_s = retryAfter;
        throw failure;
      }
      await response.body?.cancel().catch(() => {});
    },

    openEarly() {
      connect(AbortSignal.timeout(callDeadline)).catch(() => {});
    },

    close: reset,
  };
}

/** The envelope of a tool result: the JSON of its first text content, else structuredContent. */
function readEnvelope(result: { content?: unknown; structuredContent?: unknown }): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content.find(
    (c): c is { type: "text"; text: string } =>
      Boolean(c) && typeof c === "object" && c.type === "text" && typeof c.text === "string",
  );
  if (text) {
    try {
      return JSON.parse(text.text);
    } catch {
      return result.structuredContent ?? { error: { code: "invalid_response", message: text.text } };
    }
  }
  return result.structuredContent;
}

/** Any failure of a call as a ServiceCallError, transient when trying again may help. */
export function classify(error: unknown, what: string, signal?: AbortSignal): ServiceCallError {
  if (error instanceof ServiceCallError) return error;
  if (
    signal?.aborted ||
    isAbort(error) ||
    (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
  ) {
    return new ServiceCallError(TransportCode.timeout, `${what} did not answer before the deadline`, {
      transient: true,
      cause: error,
    });
  }
  if (error instanceof SdkHttpError) {
    const text = typeof error.data.text === "string" ? error.data.text : "";
    return httpError(error.status, text, what);
  }
  if (error instanceof UnauthorizedError) {
    return new ServiceCallError(TransportCode.unauthorized, `${what} refused the credential (HTTP 401)`, {
      transient: false,
      cause: error,
    });
  }
  if (error instanceof SdkError) {
    const transient = (
      [
        SdkErrorCode.ConnectionClosed,
        SdkErrorCode.SendFailed,
        SdkErrorCode.NotConnected,
        SdkErrorCode.EraNegotiationFailed,
        SdkErrorCode.ClientHttpFailedToOpenStream,
      ] as string[]
    ).includes(error.code);
    return new ServiceCallError(
      transient ? TransportCode.network : "protocol_error",
      `${what}: ${error.message}`,
      {
        transient,
        cause: error,
      },
    );
  }
  if (error instanceof ProtocolError) {
    // -32603 is the JSON-RPC internal error: the server failed, not the request.
    return new ServiceCallError("protocol_error", `${what}: ${error.message}`, {
      details: { jsonrpc_code: error.code },
      transient: error.code === -32603,
      cause: error,
    });
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof TypeError && (error.message === "fetch failed" || cause?.code)) {
    // fetch rejects with a TypeError for refused connections, resets and DNS failures.
    return new ServiceCallError(
      TransportCode.network,
      `${what} could not be reached: ${cause?.code ?? cause?.message ?? error.message}`,
      { transient: true, cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ServiceCallError("client_error", `${what}: ${message}`, { transient: false, cause: error });
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}
