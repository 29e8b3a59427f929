import { TransportCode } from "@svc/schemas";
import { type ClientFetch, type ClientResponse, nodeHttpFetch } from "./node-http-fetch.ts";
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
  /** How requests are made; default nodeHttpFetch (`fetch` itself fits too). */
  fetch?: ClientFetch;
  callDeadlineMs?: number;
  putDeadlineMs?: number;
}

/**
 * The MCP revision the client asks for at `initialize`; the service answers with the one it
 * speaks, which every later request names (`mcp-protocol-version`).
 */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";

/** What `initialize` settled: the revision, and the session when the service keeps one. */
interface Session {
  protocolVersion: string;
  sessionId: string | null;
}

/** One JSON-RPC message as the service sends it. */
interface RpcMessage {
  id?: number | string | null;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/**
 * Opens a client of the service: MCP over Streamable HTTP with `Authorization: Bearer`, spoken
 * directly (initialize, the initialized notification, then one POST per `tools/call`, each
 * answered with JSON or a short event stream). Connected on the first call. The MCP SDK's client
 * did the same with about 1 MB of code (it and zod) to load and validate: 0.25 s of CPU of every
 * command, `svc whoami` 290 ms where `svc --help` takes 30 (docs/operations.md). A transient
 * failure drops the connection so the next call (a retry) starts afresh rather than reusing a
 * session the server may have lost.
 */
export function openServiceClient(options: ServiceClientOptions): ServiceClient {
  const server = options.server.replace(/\/+$/, "");
  const endpoint = `${server}/mcp`;
  const fetchImpl = options.fetch ?? nodeHttpFetch;
  const callDeadline = options.callDeadlineMs ?? CALL_DEADLINE_MS;
  const putDeadline = options.putDeadlineMs ?? PUT_DEADLINE_MS;
  let connection: Promise<Session> | null = null;
  let nextId = 0;

  /** POSTs one JSON-RPC message; an answer other than 2xx is an httpError. */
  const post = async (message: object, what: string, signal: AbortSignal, session: Session | null) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (session) {
      headers["mcp-protocol-version"] = session.protocolVersion;
      if (session.sessionId !== null) headers["mcp-session-id"] = session.sessionId;
    }
    const response = await fetchImpl(endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify(message),
      signal,
    });
    if (!response.ok) throw httpError(response.status, await response.text().catch(() => ""), what);
    return response;
  };

  /** One request and its result; a JSON-RPC error is a `protocol_error`. */
  const request = async (
    method: string,
    params: object,
    what: string,
    signal: AbortSignal,
    session: Session | null,
  ): Promise<{ result: unknown; response: ClientResponse }> => {
    const id = ++nextId;
    const response = await post({ jsonrpc: "2.0", id, method, params }, what, signal, session);
    const answer = await answerTo(response, id, what);
    if (answer.error !== undefined) {
      const code = typeof answer.error.code === "number" ? answer.error.code : undefined;
      const message = typeof answer.error.message === "string" ? answer.error.message : "no message";
      // -32603 is the JSON-RPC internal error: the server failed, not the request.
      throw new ServiceCallError("protocol_error", `${what}: ${message}`, {
        details: { jsonrpc_code: code },
        transient: code === -32603,
      });
    }
    return { result: answer.result, response };
  };

  const connect = (signal: AbortSignal): Promise<Session> => {
    connection ??= (async () => {
      const what = `the service (${endpoint}, initialize)`;
      const { result, response } = await request(
        "initialize",
        {
          protocolVersion: CLIENT_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "svc-cli", version: "0.1.0" },
        },
        what,
        signal,
        null,
      );
      const version = (result as { protocolVersion?: unknown } | null)?.protocolVersion;
      if (typeof version !== "string") {
        throw new ServiceCallError("invalid_response", `${what} named no protocolVersion`, {
          transient: false,
        });
      }
      const session = { protocolVersion: version, sessionId: response.headers.get("mcp-session-id") };
      const initialized = await post(
        { jsonrpc: "2.0", method: "notifications/initialized" },
        what,
        signal,
        session,
      );
      await initialized.body?.cancel().catch(() => {});
      return session;
    })();
    return connection;
  };
  const reset = async () => {
    connection = null;
  };

  return {
    async callTool(name, input = {}) {
      const signal = AbortSignal.timeout(callDeadline);
      const what = `the service (${endpoint}, tool ${name})`;
      try {
        const session = await connect(signal);
        const { result } = await request("tools/call", { name, arguments: input }, what, signal, session);
        const called = (result ?? {}) as {
          content?: unknown;
          structuredContent?: unknown;
          isError?: unknown;
        };
        const envelope = readEnvelope(called);
        if (called.isError === true) throw toolError(envelope);
        if (!envelope || typeof envelope !== "object" || Array.isArray(envelope)) {
          throw new ServiceCallError(TransportCode.invalid_response, `${name} returned no JSON envelope`, {
            transient: false,
          });
        }
        return envelope as Envelope;
      } catch (error) {
        const failure = classify(error, what, signal);
        if (failure.transient) await reset();
        throw failure;
      }
    },

    async putUpload(url, bytes) {
      const target = new URL(url, `${server}/`);
      const signal = AbortSignal.timeout(putDeadline);
      let response: ClientResponse;
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

/**
 * The answer to request `id` in a response: its JSON body, or, on an event stream, the `data` of
 * the event that answers it (a stream may carry notifications first).
 */
async function answerTo(response: ClientResponse, id: number, what: string): Promise<RpcMessage> {
  const text = await response.text();
  const eventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  const candidates = eventStream ? eventData(text) : [text];
  for (const data of candidates) {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      continue;
    }
    for (const one of Array.isArray(message) ? message : [message]) {
      if (one && typeof one === "object" && (one as RpcMessage).id === id) return one as RpcMessage;
    }
  }
  throw new ServiceCallError(TransportCode.invalid_response, `${what} sent no answer to the request`, {
    details: { body: text.length > 500 ? `${text.slice(0, 500)}...` : text },
    transient: false,
  });
}

/** The `data` of each event of a text/event-stream body (multi-line data joined by newlines). */
function eventData(text: string): string[] {
  const events: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
    if (lines.length > 0) events.push(lines.join("\n"));
  }
  return events;
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
  if (signal?.aborted || isAbort(error)) {
    return new ServiceCallError(TransportCode.timeout, `${what} did not answer before the deadline`, {
      transient: true,
      cause: error,
    });
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof TypeError && (error.message === "fetch failed" || cause?.code)) {
    // fetch (and nodeHttpFetch) rejects with a TypeError for refused connections, resets and DNS failures.
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
