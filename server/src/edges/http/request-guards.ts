import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import { findUnsafeText } from "../inputs/unsafe-text.ts";

/**
 * How deeply a JSON request body may nest. Nothing the service accepts nests past a dozen levels;
 * the ceiling stops a body nested thousands deep from overflowing the stack of whatever walks it
 * after parsing (the MCP SDK's request conversion did: HTTP 500).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The request guards every route shares, installed once on the root instance: JSON bodies are
 * depth-checked on the raw text before they are parsed, and params, query and body are refused
 * with `invalid_input` when any string holds NUL or a lone surrogate, before any route sees them
 * (`/mcp` bodies are checked per tool call and resource read instead, so the refusal is a tool error).
 */
export function installRequestGuards<Logger extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>,
  /** Routes that check their parsed body's text themselves. */
  ownBodyGuards: readonly string[],
): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    const depth = jsonDepth(text);
    if (depth > MAX_JSON_DEPTH) {
      done(
        new ServiceError(
          "invalid_input",
          `the JSON body nests ${depth > 10 * MAX_JSON_DEPTH ? "thousands of levels" : `${depth} levels`} deep; at most ${MAX_JSON_DEPTH} are accepted: flatten it`,
          { field: "body" },
        ),
        undefined,
      );
      return;
    }
    parseJson(request, text, (error, value) => {
      if (!error) return done(null, value);
      // Fastify's parser says the same for a syntax error and a poisoning key: say which.
      const poisoned = /"(__proto__|constructor)"\s*:/.test(text);
      done(
        new ServiceError(
          "invalid_input",
          poisoned
            ? 'the JSON body holds a "__proto__" or "constructor" key, which is refused: rename the key'
            : `the body is not valid JSON (${error.message}): send one JSON value with content-type application/json`,
          { field: "body" },
        ),
        undefined,
      );
    });
  });
  // fastify's callback form: an async hook costs a promise and a microtask turn per request.
  app.addHook("preValidation", (request, _reply, done) => {
    try {
      refuseUnsafeParameter(request.params, "path");
      refuseUnsafeParameter(request.query, "query");
      const body = request.body;
      // /mcp checks arguments per tool call and per resource read, answering in MCP's own envelope.
      const ownGuards =
        request.routeOptions.url !== undefined && ownBodyGuards.includes(request.routeOptions.url);
      if (
        !ownGuards &&
        body !== null &&
        typeof body === "object" &&
        !Buffer.isBuffer(body) &&
        !isStream(body)
      ) {
        refuseUnsafeParameter(body, "body");
      }
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}

/**
 * The deepest nesting of `[` and `{` in a JSON text, ignoring brackets inside strings. It stops
 * counting once past ten times the ceiling, so a hostile body costs one pass at most.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > 10 * MAX_JSON_DEPTH) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** `invalid_input` in the shape of the routes' own parameter errors (see invalidRequestError). */
function refuseUnsafeParameter(value: unknown, place: "path" | "query" | "body"): void {
  const unsafe = findUnsafeText(value);
  if (!unsafe) return;
  const noun = place === "body" ? "body field" : `${place} parameter`;
  throw new ServiceError("invalid_input", `${noun} "${unsafe.field}" ${unsafe.reason}`, {
    field: unsafe.field,
    ...(place === "body" ? {} : { parameter: unsafe.field }),
    in: place,
  });
}

function isStream(value: object): boolean {
  return typeof (value as { pipe?: unknown }).pipe === "function";
}
