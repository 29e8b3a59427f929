import { createHmac, type KeyObject } from "node:crypto";

/**
 * The base64url HMAC-SHA256 (43 characters) of a token's payload text under `key`. The purpose
 * comes first so a signature made for one kind of URL (download, upload) never verifies as
 * another; the payload is base64url and has no `.`, so the joined message is unambiguous.
 */
export function tokenSignature(purpose: string, payload: string, key: KeyObject): string {
  return createHmac("sha256", key).update(`${purpose}.${payload}`, "utf8").digest("base64url");
}
