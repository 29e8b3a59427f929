import type { ErrorCode } from "@svc/schemas";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import { invalidRequestError } from "./invalid-request-error.ts";

/** Codes for the 4xx errors fastify raises itself (bad JSON, schema validation, sizes). */
const CLIENT_CODES: Readonly<Record<number, ErrorCode>> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "too_large",
};

/**
 * Turns every error into the catalogue's wire form `{error: {code, message, ...details}}`: a
 * ServiceError as it is, fastify's own client errors under the nearest code with their status,
 * and anything else as `internal` (logged with the request id, never shown to the caller).
 */
export function errorHandler(
  error: FastifyError | ServiceError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof ServiceError) return reply.status(error.status).send(error.toBody());
  // A route's schema refused the request: invalid_input naming each parameter, never a 500.
  if (error.validation !== undefined) {
    const invalid = invalidRequestError(error, request);
    return reply.status(invalid.status).send(invalid.toBody());
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = CLIENT_CODES[status] ?? "invalid_input";
    return reply.status(status).send(new ServiceError(code, error.message).toBody());
  }
  request.log.error({ err: error }, "request failed");
  return reply
    .status(500)
    .send(
      new ServiceError(
        "internal",
        `the service failed; the log has the details under request ${request.id}`,
      ).toBody(),
    );
}
