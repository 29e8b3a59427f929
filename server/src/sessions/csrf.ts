import { createHmac, timingSafeEqual } from "node:crypto";
import type { Services } from "../core/services/services.ts";
import { signingHmacKey } from "../core/signing/signing-key.ts";

/**
 * The CSRF token for a browser: an HMAC, under the service's signing secret, of the secret in the
 * browser's session cookie (a signed-in session's secret, or the random pre-sign-in value the
 * sign-in pages set). It is a synchronizer token tied to the session: every form the service
 * renders carries it, every form POST must send it back, and another site can neither read the
 * cookie (HttpOnly) nor compute the HMAC. A new session secret at sign-in gives a new token.
 */
export function csrfToken(services: Services, browserSecret: string): string {
  return createHmac("sha256", signingHmacKey(services.signingSecret))
    .update(`svc csrf\0${browserSecret}`)
    .digest("base64url");
}

/** Whether `sent` is the CSRF token of `browserSecret`, compared in constant time. */
export function isCsrfToken(services: Services, browserSecret: string | null, sent: unknown): boolean {
  if (browserSecret === null || typeof sent !== "string" || sent.length > 128) return false;
  const expected = Buffer.from(csrfToken(services, browserSecret));
  const actual = Buffer.from(sent);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
