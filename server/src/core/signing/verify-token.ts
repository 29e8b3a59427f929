import { timingSafeEqual } from "node:crypto";
import { SignedUrlFailure } from "./signed-url-failure.ts";
import { type SigningSecret, signingHmacKey } from "./signing-key.ts";
import { tokenSignature } from "./token-signature.ts";

/** A kind of signed token: the purpose its signature is bound to and the exact claim keys it carries. */
export interface TokenKind {
  purpose: string;
  keys: readonly string[];
}

export type TokenVerification =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; reason: typeof SignedUrlFailure.malformed | typeof SignedUrlFailure.bad_signature };

/** Longer than any token this server signs (targets are capped); refuse before hashing it. */
const MAX_TOKEN_LENGTH = 16_384;
const PAYLOAD = /^[A-Za-z0-9_-]+$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks a `<payload>.<signature>` token made by `signToken` for `kind`, and returns its claims.
 * The shape is checked first (malformed), then the signature in constant time (bad_signature),
 * and only then is the payload decoded: nothing unauthenticated is parsed.
 */
export function verifyToken(token: string, kind: TokenKind, secret: SigningSecret): TokenVerification {
  const key = signingHmacKey(secret);
  const parts = token.split(".");
  if (token.length > MAX_TOKEN_LENGTH || parts.length !== 2) return malformed;
  const [payload, signature] = parts as [string, string];
  // A base64url text of length 4n+1 encodes no byte string.
  if (!PAYLOAD.test(payload) || payload.length % 4 === 1 || !SIGNATURE.test(signature)) return malformed;
  // Compare the encoded text, not decoded bytes: the last of 43 characters carries 2 unused bits,
  // and four spellings decode to the same digest. Only the one this server writes is accepted.
  const expected = Buffer.from(tokenSignature(kind.purpose, payload, key), "latin1");
  if (!timingSafeEqual(expected, Buffer.from(signature, "latin1"))) {
    return { ok: false, reason: SignedUrlFailure.bad_signature };
  }
  const claims = decodeClaims(payload);
  if (claims === null || !hasExactKeys(claims, kind.keys)) return malformed;
  return { ok: true, claims };
}

const malformed = { ok: false, reason: SignedUrlFailure.malformed } as const;

function decodeClaims(payload: string): Record<string, unknown> | null {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(payload, "base64url"));
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function hasExactKeys(claims: Record<string, unknown>, keys: readonly string[]): boolean {
  const present = Object.keys(claims);
  return present.length === keys.length && keys.every((key) => Object.hasOwn(claims, key));
}
