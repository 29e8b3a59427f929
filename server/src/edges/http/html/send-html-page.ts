import { createHash } from "node:crypto";
import type { FastifyReply } from "fastify";
import type { Html } from "./html.ts";
import { PAGE_STYLES } from "./page-styles.ts";

const styleHashes = Object.values(PAGE_STYLES).map(
  (css) => `'sha256-${createHash("sha256").update(css).digest("base64")}'`,
);

/**
 * The policy on every page: nothing loads or runs but the pages' own stylesheets (by hash); no
 * script, no frame around the page, no `<base>`, forms post only here. An injection that slipped
 * past escaping could still not run.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${styleHashes.join(" ")}`,
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Sends a page, only ever an `Html`, with its media type and the security headers. `formTargets`
 * names origins a form's POST may be redirected to (browsers apply form-action to redirects): the
 * OAuth consent form ends at the client's redirect URI.
 */
export function sendHtmlPage(
  reply: FastifyReply,
  page: Html,
  options: { formTargets?: readonly string[] } = {},
): FastifyReply {
  const policy = options.formTargets?.length
    ? PAGE_CONTENT_SECURITY_POLICY.replace(
        "form-action 'self'",
        `form-action 'self' ${options.formTargets.join(" ")}`,
      )
    : PAGE_CONTENT_SECURITY_POLICY;
  return reply
    .type("text/html; charset=utf-8")
    .header("content-security-policy", policy)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "same-origin")
    .send(page.toString());
}
