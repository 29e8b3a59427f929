import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { csrfToken, isCsrfToken } from "../../sessions/csrf.ts";
import { sessionSecretOf } from "../../sessions/sessions.ts";
import { errorHandler } from "./error-handler.ts";
import { type Html, html } from "./html/html.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { prefersJson } from "./prefers-json.ts";
import { siteErrorPage } from "./site-error-page.ts";

/** The form field that carries the CSRF token. */
export const CSRF_FIELD = "_csrf";

/** A form body is small: a token, a few ids (a scope with longer text, as a review response, passes its own limit). */
const FORM_BODY_LIMIT = 16 * 1024;

/** A parsed `application/x-www-form-urlencoded` body: each field's first value. */
export type FormBody = Record<string, string>;

/**
 * Makes the plugin scope `app` a home for browser forms: it parses urlencoded bodies (at most
 * `bodyLimit` bytes, 16 KiB unless given), refuses every POST in the scope whose `_csrf` field is
 * not the CSRF token of the browser's session cookie (403 csrf_failed, a page for a browser, JSON
 * for a client asking for it), and shows errors as pages to browsers (`errorPage`, else a plain
 * one). Register every form POST route inside such a scope;
 * this hook is the one place the CSRF rule is checked.
 */
export function acceptFormPosts(
  app: FastifyInstance,
  services: Services,
  options: {
    /** The largest body in bytes; 16 KiB unless given. */
    bodyLimit?: number;
    /** The page a refusal shows a browser; the site's error page (siteErrorPage) unless given. */
    errorPage?: (request: FastifyRequest, error: ServiceError) => Promise<Html>;
  } = {},
): void {
  const { bodyLimit = FORM_BODY_LIMIT, errorPage } = options;
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit },
    (_request, body, done) => {
      const fields: FormBody = {};
      for (const [name, value] of new URLSearchParams(body as string)) fields[name] ??= value;
      done(null, fields);
    },
  );
  app.addHook("preHandler", async (request) => {
    if (request.method !== "POST") return;
    // A multipart form (a file upload) is streamed: its route reads it with readMultipartForm,
    // which checks the token the same way before it reads any file.
    if (isMultipart(request)) return;
    const body = request.body as FormBody | undefined;
    checkFormOrigin(services, request, body && typeof body === "object" ? body[CSRF_FIELD] : undefined);
  });
  const page = errorPage ?? siteErrorPage(services);
  app.setErrorHandler(async (error, request, reply) => {
    if (error instanceof ServiceError && !prefersJson(request.headers.accept)) {
      reply.status(error.status).header("cache-control", "no-store");
      return sendHtmlPage(reply, await page(request, error));
    }
    return errorHandler(error as ServiceError, request, reply);
  });
}

/**
 * The CSRF rule of every form POST: the request's `_csrf` is the token of the browser's session
 * cookie, and an `Origin` header, when the browser sends one, is this service's own. A foreign
 * origin is refused even with a token, as a second line behind it.
 */
export function checkFormOrigin(services: Services, request: FastifyRequest, sent: unknown): void {
  const origin = request.headers.origin;
  if (origin !== undefined && !ownOrigins(services, request).includes(origin)) {
    throw new ServiceError(
      "csrf_failed",
      `this form was sent from another site (${origin.slice(0, 100)}), not from this service's own page: open the page on this service and submit it there`,
    );
  }
  if (!isCsrfToken(services, sessionSecretOf(request.headers.cookie), sent)) {
    throw new ServiceError(
      "csrf_failed",
      "this form was not sent from this service's own page in this browser (its CSRF token is missing or wrong): reload the page and submit it again",
    );
  }
}

/** The public base URL's origin, and the request's own (a deployment reached directly). */
function ownOrigins(services: Services, request: FastifyRequest): string[] {
  const own = `${request.protocol}://${request.host}`;
  return services.baseUrl ? [new URL(services.baseUrl).origin, own] : [own];
}

function isMultipart(request: FastifyRequest): boolean {
  return /^multipart\/form-data\b/i.test(request.headers["content-type"] ?? "");
}

/** A streamed form's parts after the token: text fields, and files to be read as they come. */
export type MultipartPart =
  | { kind: "field"; name: string; value: string; truncated: boolean }
  | { kind: "file"; name: string; filename: string; mimetype: string; stream: NodeJS.ReadableStream };

/**
 * Reads a `multipart/form-data` POST (registered with @fastify/multipart in the route's scope)
 * part by part, without buffering files. The form must put `_csrf` first, as the service's own
 * forms do: the token is checked (checkFormOrigin) before any other part is read, so a forged
 * upload is refused before one byte of it is stored. Each file's stream must be consumed (or
 * the request ended) before the next part arrives.
 */
export async function* readMultipartForm(
  services: Services,
  request: FastifyRequest,
): AsyncGenerator<MultipartPart> {
  let checked = false;
  for await (const part of request.parts()) {
    if (!checked) {
      checkFormOrigin(
        services,
        request,
        part.type === "field" && part.fieldname === CSRF_FIELD ? part.value : undefined,
      );
      checked = true;
      continue;
    }
    if (part.type === "field") {
      yield {
        kind: "field",
        name: part.fieldname,
        value: String(part.value),
        truncated: part.valueTruncated,
      };
    } else {
      yield {
        kind: "file",
        name: part.fieldname,
        filename: part.filename,
        mimetype: part.mimetype,
        stream: part.file,
      };
    }
  }
  if (!checked) checkFormOrigin(services, request, undefined);
}

/** The hidden field every form rendered for this browser carries. */
export function csrfField(services: Services, browserSecret: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken(services, browserSecret)}">`;
}

/** The fields of a form POST (empty when the body was not a form). */
export function formOf(request: FastifyRequest): FormBody {
  const body = request.body;
  return body && typeof body === "object" ? (body as FormBody) : {};
}
