import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

/**
 * Traces (docs/operations.md, "Watching it"): one trace from an MCP call or an `/api` request to
 * the job it enqueues, the worker's run and each sandbox stage. The spans are made here through
 * OpenTelemetry's API, which does nothing until startTracing (start-tracing.ts) registers the SDK,
 * so a deployment without a collector pays a no-op call per span and no context propagation.
 */
const tracer = trace.getTracer("svc");

let enabled = false;

/** Set by startTracing: spans are recorded and exported. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
}

export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Runs `fn` inside a span named `name` (the active span while it runs): its failure is recorded
 * on the span, which ends when `fn` settles. With tracing off, `fn` runs as it is.
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  parent?: Context,
): Promise<T> {
  if (!enabled) return await fn(undefined);
  return await tracer.startActiveSpan(name, { attributes }, parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The W3C `traceparent` of the active span, to carry in a job's payload; null with tracing off. */
export function currentTraceparent(): string | null {
  if (!enabled) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context a job's `traceparent` names (the enqueuing request's span), or the active one. */
export function contextFromTraceparent(traceparent: unknown): Context {
  if (!enabled || typeof traceparent !== "string") return context.active();
  return propagation.extract(context.active(), { traceparent });
}

/** The context of an incoming request's `traceparent`/`tracestate` headers (a caller's trace). */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(context.active(), headers);
}

export { context, SpanStatusCode, trace, tracer };
