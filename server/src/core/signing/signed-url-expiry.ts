/** Signed download and upload URLs live 15 minutes (spec sections 4.1 and 8). */
export const SIGNED_URL_TTL_SECONDS = 900;

/**
 * The expiry to sign for a URL issued at `now`: whole seconds, because the URL carries epoch
 * seconds, so the `expires_at` a response reports is exactly the instant the URL stops working.
 */
export function signedUrlExpiry(now: Date, ttlSeconds: number = SIGNED_URL_TTL_SECONDS): Date {
  return new Date((expirySeconds(now) + ttlSeconds) * 1000);
}

/**
 * Epoch seconds of an expiry, rounded down (a URL may end up to a second early, never late).
 * Throws a `TypeError` for an invalid or negative date.
 */
export function expirySeconds(expiresAt: Date): number {
  const seconds = Math.floor(expiresAt.getTime() / 1000);
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new TypeError("expiresAt must be a valid date");
  return seconds;
}

/** True when claim `e` is epoch seconds this server could have signed. */
export function isExpirySeconds(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
