import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { SpanKind } from "@opentelemetry/api";
import { context, contextFromHeaders, SpanStatusCode, trace, tracer } from "../../core/tracing/tracing.ts";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * fastify's `serverFactory` when tracing is on: each request runs inside a server span, the
 * child of the caller's `traceparent` when it sends one, so every span the request makes (a tool
 * call, a publication) and every job it enqueues joins its trace. buildApp's onResponse hook
 * names the span after the route template; it ends when the response is done.
 */
export function tracedServer(handler: Handler): Server {
  return createServer((request, response) => {
    const parent = contextFromHeaders(request.headers);
    const span = tracer.startSpan(
      request.method ?? "HTTP",
      { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method ?? "" } },
      parent,
    );
    response.once("close", () => {
      span.setAttribute("http.response.status_code", response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), () => handler(request, response));
  });
}
