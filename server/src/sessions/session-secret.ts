import { sha256 } from "@svc/app";
import { randomChars } from "../core/ids/random-chars.ts";

/** The cookie that carries a browser's session secret. */
export const SESSION_COOKIE = "svc_session";

/** A session secret: `svs_` and 43 base62 characters (about 256 bits). */
export const SESSION_SECRET_PATTERN = /^svs_[0-9A-Za-z]{43}$/;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new random session secret. */
export function newSessionSecret(): string {
  return `svs_${randomChars(BASE62, 43)}`;
}

/** What the database keeps in place of a session secret or a sign-in link's token. */
export function secretHash(secret: string): string {
  return sha256(secret);
}
