import { type SigningSecret, signingHmacKey } from "./signing-key.ts";
import { tokenSignature } from "./token-signature.ts";

/**
 * `<payload>.<signature>`: the payload is the base64url (no padding) of the compact JSON of
 * `claims`, the signature the HMAC of that exact text. Callers pass claims in a fixed key order,
 * so equal claims always give the same token.
 */
export function signToken(
  purpose: string,
  claims: Record<string, string | number>,
  secret: SigningSecret,
): string {
  const payload = Buffer.from(JSON.stringify(claims), "utf8").toString("base64url");
  return `${payload}.${tokenSignature(purpose, payload, signingHmacKey(secret))}`;
}
