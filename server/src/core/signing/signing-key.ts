/** The server's secret for signed URLs, as configured: text or raw bytes. */
export type SigningSecret = string | Uint8Array;

/** Below 32 bytes an HMAC-SHA256 key is weaker than the hash; refuse it rather than sign weakly. */
export const MIN_SECRET_BYTES = 32;

/** The HMAC key for a secret; throws a `RangeError` when the secret is shorter than 32 bytes. */
export function signingKey(secret: SigningSecret): Buffer {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
  if (key.byteLength < MIN_SECRET_BYTES) {
    throw new RangeError(
      `the signing secret has ${key.byteLength} bytes: use at least ${MIN_SECRET_BYTES} random bytes`,
    );
  }
  return key;
}
