import { createSecretKey, type KeyObject } from "node:crypto";

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

/** The HMAC keys already made, by secret: a process signs with one or two secrets at most. */
const hmacKeys = new Map<string, KeyObject>();
const hmacKeysOfBytes = new WeakMap<Uint8Array, KeyObject>();

/**
 * signingKey as a KeyObject, made once per secret: createHmac with a KeyObject costs about 3 µs,
 * with a Buffer about 15 µs (OpenSSL prepares the key each time), and every signed link of an
 * envelope is an HMAC. Throws as signingKey does.
 */
export function signingHmacKey(secret: SigningSecret): KeyObject {
  const known = typeof secret === "string" ? hmacKeys.get(secret) : hmacKeysOfBytes.get(secret);
  if (known !== undefined) return known;
  const key = createSecretKey(signingKey(secret));
  if (typeof secret !== "string") hmacKeysOfBytes.set(secret, key);
  else if (hmacKeys.size < 8) hmacKeys.set(secret, key);
  return key;
}
