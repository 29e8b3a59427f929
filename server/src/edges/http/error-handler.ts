import type { ErrorCode } from "@svc/schemas";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { invalidRequestError } from "./invalid-request-error.ts";
import { siteErrorPage } from "./site-error-page.ts";

/** Codes for the 4xx errors fastify raises itself (bad JSON, schema validation, sizes). */
const CLIENT_CODES: Readonly<Record<number, ErrorCode>> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "too_large",
};

/**
 * Every error as the catalogue's ServiceError: a ServiceError as it is, fastify's own client
 * errors under the nearest code with their status, and anything else as `internal` (logged with
 * the request id, never shown to the caller).
 */
export function serviceErrorOf(error: FastifyError | ServiceError, request: FastifyRequest): ServiceError {
  if (error instanceof ServiceError) return error;
  // A route's schema refused the request: invalid_input naming each parameter, never a 500.
  if (error.validation !== undefined) return invalidRequestError(error, request);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500)
    return new ServiceError(CLIENT_CODES[status] ?? "invalid_input", error.message);
  request.log.error({ err: error }, "request failed");
  return new ServiceError(
    "internal",
    `the service failed; the log has the details under request ${request.id}`,
  );
}

/** Turns every error into the catalogue's wire form `{error: {code, message, ...details}}`. */
export function errorHandler(
  error: FastifyError | ServiceError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const failure = serviceErrorOf(error, request);
  return reply.status(failure.status).send(failure.toBody());
}

/** Paths whose callers are programs: their errors are JSON whatever the Accept header says. */
const PROGRAM_PATHS = /^\/(api|mcp|oauth|dl|\.well-known)(\/|\?|$)/;

/**
 * Whether a failed request came from a browser: it asks for `text/html` by name (a program's
 * `*\/*` or `application/json` does not) and is not on a path only programs use.
 */
export function wantsErrorPage(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? "";
  if (PROGRAM_PATHS.test(request.url)) return false;
  const html = accept
    .split(",")
    .map((part) => part.trim().toLowerCase().split(";"))
    .find(([type]) => type?.trim() === "text/html");
  if (!html) return false;
  const q = html
    .slice(1)
    .map((p) => p.trim())
    .find((p) => p.startsWith("q="));
  return !q || Number(q.slice(2)) > 0;
}

/**
 * The application's error handler: a browser gets the site's error page (the error's code and
 * message in the site frame, with the error's status); every program gets the JSON form.
 */
export function siteAwareErrorHandler(services: Services) {
  const page = siteErrorPage(services);
  return async (error: FastifyError | ServiceError, request: FastifyRequest, reply: FastifyReply) => {
    const failure = serviceErrorOf(error, request);
    if (!wantsErrorPage(request)) return reply.status(failure.status).send(failure.toBody());
    reply.status(failure.status).header("cache-control", "no-store").header("vary", "accept");
    return sendHtmlPage(reply, await page(request, failure));
  };
}
