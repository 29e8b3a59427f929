import type { FastifyError, FastifyRequest } from "fastify";
import type { z } from "zod";
import { ServiceError } from "../../core/errors/service-error.ts";

/** Where a rejected value was, as fastify's validation names it and as the error tells the caller. */
const PLACES = {
  querystring: { in: "query", noun: "query parameter" },
  params: { in: "path", noun: "path parameter" },
  body: { in: "body", noun: "body field" },
  headers: { in: "header", noun: "header" },
} as const;

/** One rejected value, as the error's `issues` detail lists it. */
interface RequestIssue {
  field: string;
  message: string;
}

/**
 * The `invalid_input` error for a request a route's schema rejected (fastify's validation error,
 * from the zod validator compiler or ajv): the message names each parameter, what is wrong and
 * what the parameter takes; `field` (and `parameter`, for query and path) is the first one,
 * `in` says where it was, and `issues` lists them all. Unknown parameters are named with the
 * ones the route accepts.
 */
export function invalidRequestError(error: FastifyError, request: FastifyRequest): ServiceError {
  const context = (error.validationContext ?? "body") as keyof typeof PLACES;
  const place = PLACES[context] ?? PLACES.body;
  const schema = objectShape(request.routeOptions.schema?.[context]);
  const raw: unknown = {
    querystring: request.query,
    params: request.params,
    body: request.body,
    headers: request.headers,
  }[context];
  const issues: RequestIssue[] = (error.validation ?? []).flatMap((item): RequestIssue[] => {
    const at = item.instancePath.replace(/^\//, "").replaceAll("/", ".");
    const unknown = unknownNames(item);
    if (unknown.length > 0) {
      const accepted = schema ? `: use ${Object.keys(schema).join(", ")}` : ": remove it";
      return unknown.map((name) => ({
        field: at ? `${at}.${name}` : name,
        message: `is unknown to ${request.routeOptions.url ?? "this route"}${accepted}`,
      }));
    }
    const given =
      at && raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>)[at] : undefined;
    if (context === "querystring" && Array.isArray(given)) {
      return [{ field: at, message: "is given more than once: give it once" }];
    }
    return [{ field: at, message: explain(item.message ?? "", at ? schema?.[at] : undefined) }];
  });
  const first = issues[0] ?? { field: "", message: error.message };
  const summary = issues
    .map(({ field, message }) => (field ? `${place.noun} "${field}" ${message}` : message))
    .join("; ");
  return new ServiceError("invalid_input", `${summary}. GET /api/openapi.json describes every parameter`, {
    field: first.field,
    ...(place.in === "query" || place.in === "path" ? { parameter: first.field } : {}),
    in: place.in,
    issues,
  });
}

/** The names an unrecognized-keys issue (zod) or an additionalProperties error (ajv) reports. */
function unknownNames(item: NonNullable<FastifyError["validation"]>[number]): string[] {
  const params = item.params as { keys?: unknown; additionalProperty?: unknown };
  if (item.keyword === "unrecognized_keys" && Array.isArray(params.keys)) return params.keys.map(String);
  if (item.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    return [params.additionalProperty];
  }
  return [];
}

/** The fields of a route's zod object schema, under a preprocess step (see fromQueryString). */
function objectShape(schema: unknown): Record<string, z.ZodType> | undefined {
  let current = schema as { shape?: unknown; _zod?: { def?: { type?: string; out?: unknown } } } | undefined;
  while (current?._zod?.def?.type === "pipe") current = current._zod.def.out as typeof current;
  const shape = current?.shape;
  return shape !== null && typeof shape === "object" ? (shape as Record<string, z.ZodType>) : undefined;
}

/**
 * A rejected value's message: the field's own rule when it says what to give ("must be a
 * VerificationRun id: ..."), else zod's finding and what the field takes, from its description.
 */
function explain(message: string, field: z.ZodType | undefined): string {
  if (message.startsWith("must ")) return message;
  const finding = message.charAt(0).toLowerCase() + message.slice(1);
  const takes = field?.description?.replace(/\.$/, "");
  return takes ? `is invalid (${finding}); expected: ${takes}` : `is invalid (${finding})`;
}
