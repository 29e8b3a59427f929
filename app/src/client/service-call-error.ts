import { TransportCode } from "@svc/schemas";
/**
 * Why a call to the service failed, in one shape whatever the layer: a tool error from the service
 * (`code` is the service's, e.g. `stale_plan_hash`, `forbidden`), an HTTP status, a network
 * failure or a deadline. `transient` says whether trying the same call again may succeed.
 */
export class ServiceCallError extends Error {
  override name = "ServiceCallError";
  readonly code: string;
  /** The tool error's other fields, or the HTTP status and body. */
  readonly details: Record<string, unknown>;
  readonly transient: boolean;
  constructor(
    code: string,
    message: string,
    options: { details?: Record<string, unknown>; transient: boolean; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
    this.transient = options.transient;
  }
}

/**
 * Tool error codes worth retrying: the service said its own machinery failed, it is not ready, or
 * it is at its limit of concurrent work (`busy`, with `retry_after_s`).
 * Every other tool error is an answer about the request, and asking again gives the same answer.
 */
const TRANSIENT_TOOL_CODES: ReadonlySet<string> = new Set(["internal", "unavailable", "busy"]);

/** A tool error `{error: {code, message, ...details}}` as a ServiceCallError. */
export function toolError(payload: unknown): ServiceCallError {
  const error =
    payload && typeof payload === "object" && "error" in payload
      ? (payload as { error: unknown }).error
      : undefined;
  if (!error || typeof error !== "object") {
    return new ServiceCallError(
      "invalid_response",
      `the service answered with an error it did not describe`,
      {
        details: { payload },
        transient: false,
      },
    );
  }
  const { code, message, ...details } = error as Record<string, unknown>;
  const name = typeof code === "string" ? code : "unknown";
  return new ServiceCallError(name, typeof message === "string" ? message : name, {
    details,
    transient: TRANSIENT_TOOL_CODES.has(name),
  });
}

/** An HTTP status as a ServiceCallError: 5xx, 429 and 408 are transient, other statuses are not. */
export function httpError(status: number, body: string, what: string): ServiceCallError {
  const transient = status >= 500 || status === 429 || status === 408;
  const code = status === 401 ? TransportCode.unauthorized : TransportCode.http;
  const text = body.length > 500 ? `${body.slice(0, 500)}...` : body;
  return new ServiceCallError(code, `${what} answered HTTP ${status}${text ? `: ${text}` : ""}`, {
    details: { status, body: text },
    transient,
  });
}
