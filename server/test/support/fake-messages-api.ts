import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { HostedReviewers } from "../../src/core/services/hosted-reviewer.ts";
import { createAnthropicHostedReviewers } from "../../src/reviews/agents/anthropic-hosted-reviewers.ts";

/**
 * A local stand-in for Anthropic's Messages API, on node:http, for tests that drive the real
 * `@anthropic-ai/sdk` client: `POST /v1/messages` answers with the real message shape (content
 * blocks, stop_reason, usage) or the real error body `{type: "error", error: {type, message}}`;
 * requests without the right key (`x-api-key` or `Authorization: Bearer`) get 401 and without
 * `anthropic-version` 400, as the real service does. Replies are scripted per test with
 * {@link reply}. Retryable errors carry `retry-after-ms: 1`, so an SDK retry does not wait.
 */

/** The API key the fake accepts (and {@link testHostedReviewers} sends). */
export const FAKE_API_KEY = "sk-ant-test-fake-messages-api";

/** One request the fake received, as the SDK sent it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, as the SDK sent it (unchecked beyond what {@link refuse} tests). */
  body: MessageCreateParamsNonStreaming;
  /** The body's text. */
  raw: string;
}

/** What the fake answers one request with: a status and a JSON body. */
export interface ScriptedReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A reply, or a function of the request that makes one. */
export type ReplyScript = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

/** The error `type` the real API gives each status. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

let sequence = 0;
const nextId = (prefix: string) => `${prefix}_fake${String(++sequence).padStart(6, "0")}`;

function message(request: RecordedRequest, content: unknown[], stop_reason: string): ScriptedReply {
  return {
    status: 200,
    body: {
      id: nextId("msg"),
      type: "message",
      role: "assistant",
      model: request.body.model,
      content,
      stop_reason,
      stop_sequence: null,
      container: null,
      usage: {
        input_tokens: Math.ceil(request.raw.length / 4),
        output_tokens: Math.ceil(JSON.stringify(content).length / 4),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        server_tool_use: null,
        service_tier: "standard",
      },
    },
  };
}

/** Scripted replies in the real shapes. */
export const reply = {
  /** The model calls a tool (default `submit_review`) with `input`; stop_reason `tool_use`. */
  toolUse(input: unknown, options: { name?: string; stop_reason?: string } = {}): ReplyScript {
    return (request) =>
      message(
        request,
        [
          {
            type: "tool_use",
            id: nextId("toolu"),
            name: options.name ?? "submit_review",
            input,
            caller: { type: "direct" },
          },
        ],
        options.stop_reason ?? "tool_use",
      );
  },
  /** The model answers in text; stop_reason `end_turn` unless given. */
  text(text: string, options: { stop_reason?: string } = {}): ReplyScript {
    return (request) =>
      message(request, [{ type: "text", text, citations: null }], options.stop_reason ?? "end_turn");
  },
  /** An HTTP error with the real error body, e.g. `reply.error(529)` for overloaded. */
  error(status: number, errorMessage = "scripted error"): ReplyScript {
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    return () => ({
      status,
      ...(retryable ? { headers: { "retry-after-ms": "1" } } : {}),
      body: {
        type: "error",
        error: { type: ERROR_TYPES[status] ?? "api_error", message: errorMessage },
        request_id: nextId("req"),
      },
    });
  },
};

export interface FakeMessagesApi {
  /** The base address to give the SDK (`http://127.0.0.1:<port>`). */
  baseURL: string;
  apiKey: string;
  /** Every request received, in order, including refused ones. */
  requests: RecordedRequest[];
  /** Queues replies for the next requests, in order. */
  reply(...scripts: ReplyScript[]): void;
  /** What to answer once the queue is empty; default a 500 saying no reply was scripted. */
  replyByDefault(script: ReplyScript): void;
  close(): Promise<void>;
}

/** Starts the fake on a free local port. */
export async function startFakeMessagesApi(options: { apiKey?: string } = {}): Promise<FakeMessagesApi> {
  const apiKey = options.apiKey ?? FAKE_API_KEY;
  const requests: RecordedRequest[] = [];
  const queue: ReplyScript[] = [];
  let fallback: ReplyScript = reply.error(
    500,
    "the fake Messages API has no reply scripted for this request",
  );

  const answer = (request: RecordedRequest): ScriptedReply => {
    const refusal = refuse(request, apiKey);
    if (refusal !== undefined) return refusal;
    const script = queue.shift() ?? fallback;
    return typeof script === "function" ? script(request) : script;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: refuse() answers 400.
      }
      const request: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: body as MessageCreateParamsNonStreaming,
        raw: text,
      };
      requests.push(request);
      const { status, body: out, headers } = answer(request);
      res.writeHead(status, { ...headers, "content-type": "application/json", "request-id": nextId("req") });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    reply: (...scripts) => queue.push(...scripts),
    replyByDefault: (script) => {
      fallback = script;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The checks the real API makes before it reads a request; undefined when it passes them. */
function refuse(request: RecordedRequest, apiKey: string): ScriptedReply | undefined {
  const fail = (status: number, text: string) =>
    (reply.error(status, text) as (r: RecordedRequest) => ScriptedReply)(request);
  const path = request.path.split("?")[0];
  if (request.method !== "POST" || path !== "/v1/messages")
    return fail(404, `${request.method} ${path} is not served by this fake`);
  // The API takes the key as x-api-key or as a bearer token; SDK 1.x sends the bearer form.
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === "string" ? authorization.replace(/^Bearer /, "") : undefined;
  if (request.headers["x-api-key"] !== apiKey && bearer !== apiKey) return fail(401, "invalid x-api-key");
  if (
    typeof request.headers["anthropic-version"] !== "string" ||
    request.headers["anthropic-version"] === ""
  ) {
    return fail(400, "anthropic-version: header is required");
  }
  const body = request.body as unknown as Record<string, unknown> | undefined;
  if (typeof body !== "object" || body === null) return fail(400, "the request body must be a JSON object");
  for (const field of ["model", "max_tokens", "messages"]) {
    if (!(field in body)) return fail(400, `${field}: Field required`);
  }
  return undefined;
}

/**
 * Hosted reviewers on the real SDK client pointed at a fake (or any) Messages API, with no
 * retries so a scripted error fails at once: pass as `services.hostedReviewers` in tests.
 */
export function testHostedReviewers(baseURL: string, apiKey = FAKE_API_KEY): HostedReviewers {
  return createAnthropicHostedReviewers({ apiKey, baseURL, maxRetries: 0 });
}
