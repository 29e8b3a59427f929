import { createHmac } from "node:crypto";
import { type SigningSecret, signingKey } from "../core/signing/signing-key.ts";

/**
 * A webhook subscription's signing secret: HMAC-SHA256 of its id under the deployment's signing
 * secret, hex. Derived rather than stored, so the database never holds it; shown to the
 * subscriber once, at events/subscribe. Rotating the deployment's secret changes every one.
 */
export function webhookSecret(signingSecret: SigningSecret, subscriptionId: string): string {
  return createHmac("sha256", signingKey(signingSecret))
    .update(`svc webhook secret\n${subscriptionId}`)
    .digest("hex");
}

/** `x-svc-signature-256`: `sha256=` and the hex HMAC-SHA256 of the raw body, as GitHub signs. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
