import { signToken } from "./sign-token.ts";
import { assertSignedTarget, isSignedTarget } from "./signed-target.ts";
import { expirySeconds, isExpirySeconds } from "./signed-url-expiry.ts";
import { SignedUrlFailure } from "./signed-url-failure.ts";
import type { SigningSecret } from "./signing-key.ts";
import { verifyToken } from "./verify-token.ts";

export { SIGNED_URL_TTL_SECONDS, signedUrlExpiry } from "./signed-url-expiry.ts";
export { SignedUrlFailure } from "./signed-url-failure.ts";
export type { SigningSecret } from "./signing-key.ts";

/** Signed downloads are served under this path (spec section 4.1: `GET /dl/<payload>.<signature>`). */
export const SIGNED_DOWNLOAD_PREFIX = "/dl/";

/** Claims `t` (target) and `e` (expiry, epoch seconds), in this order. */
const DOWNLOAD = { purpose: "svc.dl.v1", keys: ["t", "e"] } as const;

/** What a signed download grants: reading one target until `expiresAt`. */
export interface SignedDownload {
  target: string;
  expiresAt: Date;
}

export type SignedPathVerification =
  | { ok: true; target: string; expiresAt: Date }
  | { ok: false; reason: SignedUrlFailure };

/**
 * `/dl/<payload>.<signature>`: a capability to read exactly one target, with no bearer, until
 * `expiresAt` (rounded down to whole seconds; use `signedUrlExpiry(now)` for the 15-minute default).
 * Prefix the service's base URL to give it out.
 */
export function signUrl({ target, expiresAt }: SignedDownload, secret: SigningSecret): string {
  assertSignedTarget(target);
  return `${SIGNED_DOWNLOAD_PREFIX}${signToken(DOWNLOAD.purpose, { t: target, e: expirySeconds(expiresAt) }, secret)}`;
}

/**
 * Checks a request path made by {@link signUrl} (the path alone: a query string makes it
 * malformed). Expired when `now` has reached the expiry. An authentic path only proves the
 * signature: the route must still check the target's own state (a withdrawn artifact answers
 * 410; private work also needs a session, spec section 5).
 */
export function verifySignedPath(path: string, secret: SigningSecret, now: Date): SignedPathVerification {
  if (!path.startsWith(SIGNED_DOWNLOAD_PREFIX)) return { ok: false, reason: SignedUrlFailure.malformed };
  const verified = verifyToken(path.slice(SIGNED_DOWNLOAD_PREFIX.length), DOWNLOAD, secret);
  if (!verified.ok) return verified;
  const { t, e } = verified.claims;
  if (!isSignedTarget(t) || !isExpirySeconds(e)) return { ok: false, reason: SignedUrlFailure.malformed };
  if (now.getTime() >= e * 1000) return { ok: false, reason: SignedUrlFailure.expired };
  return { ok: true, target: t, expiresAt: new Date(e * 1000) };
}
