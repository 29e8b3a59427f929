import { hash } from "node:crypto";
import { randomChars } from "../core/ids/random-chars.ts";

/**
 * Bearer tokens are `svc_` and 40 base62 characters (about 238 bits). The first 12 characters
 * (`svc_` and 8 more) are the public prefix that names a token for revocation; the service
 * stores only the sha256 of the whole token.
 */
export const TOKEN_PATTERN = /^svc_[0-9A-Za-z]{40}$/;
export const TOKEN_PREFIX_LENGTH = 12;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new secret token. */
export function newTokenSecret(): string {
  return `svc_${randomChars(BASE62, 40)}`;
}

/**
 * What is stored in place of the secret: `sha256:<hex>`, as @svc/app's sha256 writes it, with
 * node's one-shot hash (a quarter of createHash's cost; every request hashes its token).
 */
export function tokenHash(token: string): string {
  return `sha256:${hash("sha256", token)}`;
}

/** The public prefix of a token. */
export function tokenPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX_LENGTH);
}
