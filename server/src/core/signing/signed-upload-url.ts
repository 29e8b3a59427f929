import type { ContentHash } from "@svc/app";
import { isContentHash } from "../blobs/content-hash.ts";
import { InvalidContentHashError } from "../blobs/invalid-content-hash-error.ts";
import { signToken } from "./sign-token.ts";
import { assertSignedTarget, isSignedTarget } from "./signed-target.ts";
import { expirySeconds, isExpirySeconds } from "./signed-url-expiry.ts";
import { SignedUrlFailure } from "./signed-url-failure.ts";
import type { SigningSecret } from "./signing-key.ts";
import { verifyToken } from "./verify-token.ts";

/** Signed uploads are `PUT` to this path; the specification names no path, so this one is ours. */
export const SIGNED_UPLOAD_PREFIX = "/up/";

/** Claims `t` (target), `e` (expiry), `m` (max bytes), `h` (content hash), in this order. */
const UPLOAD = { purpose: "svc.up.v1", keys: ["t", "e", "m", "h"] } as const;

/** What a signed upload grants: writing these exact bytes (at most `maxBytes`) to one target. */
export interface SignedUpload {
  target: string;
  expiresAt: Date;
  maxBytes: number;
  contentHash: ContentHash;
}

export type SignedUploadVerification =
  | ({ ok: true } & SignedUpload)
  | { ok: false; reason: SignedUrlFailure };

/**
 * `/up/<payload>.<signature>`: a capability to PUT one upload. The maximum size and the declared
 * content hash are signed with the target, so the route passes them to `BlobStore.put` as
 * `maxBytes` and `expectedHash` and nothing else can be stored under this URL.
 */
export function signUploadUrl(upload: SignedUpload, secret: SigningSecret): string {
  const { target, expiresAt, maxBytes, contentHash } = upload;
  assertSignedTarget(target);
  if (!isContentHash(contentHash)) throw new InvalidContentHashError(contentHash);
  if (!isByteCount(maxBytes))
    throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
  const claims = { t: target, e: expirySeconds(expiresAt), m: maxBytes, h: contentHash };
  return `${SIGNED_UPLOAD_PREFIX}${signToken(UPLOAD.purpose, claims, secret)}`;
}

/**
 * Checks a request path made by {@link signUploadUrl}. Expiry is checked when the request
 * arrives: an upload that started in time may finish after it.
 */
export function verifySignedUploadPath(
  path: string,
  secret: SigningSecret,
  now: Date,
): SignedUploadVerification {
  if (!path.startsWith(SIGNED_UPLOAD_PREFIX)) return { ok: false, reason: SignedUrlFailure.malformed };
  const verified = verifyToken(path.slice(SIGNED_UPLOAD_PREFIX.length), UPLOAD, secret);
  if (!verified.ok) return verified;
  const { t, e, m, h } = verified.claims;
  if (!isSignedTarget(t) || !isExpirySeconds(e) || !isByteCount(m) || !isContentHash(h)) {
    return { ok: false, reason: SignedUrlFailure.malformed };
  }
  if (now.getTime() >= e * 1000) return { ok: false, reason: SignedUrlFailure.expired };
  return { ok: true, target: t, expiresAt: new Date(e * 1000), maxBytes: m, contentHash: h };
}

function isByteCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
