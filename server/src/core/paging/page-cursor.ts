import { createHash } from "node:crypto";
import { canonicalJson } from "@svc/app";
import { ServiceError } from "../errors/service-error.ts";

/**
 * An opaque page cursor: base64url JSON of the keyset position after the last row returned
 * (`k`, the sort key values as the database computed them), the random order's seed (`s`) and a
 * fingerprint (`f`) of the search it belongs to, so a cursor replayed against other filters is
 * refused rather than silently skipping rows. A cursor grants nothing: every page re-applies the
 * caller's visibility, so a forged one can only move the position.
 */
export interface PageCursor {
  /** Sort key values of the last row returned, in key order. */
  k: Array<number | string>;
  /** The seed of a random order. */
  s?: string;
  f: string;
}

/** A short, stable fingerprint of the parameters a cursor chain must keep. */
export function cursorFingerprint(parameters: Record<string, unknown>): string {
  return createHash("sha256").update(canonicalJson(parameters)).digest("base64url").slice(0, 16);
}

/** The cursor string for a position. */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify(cursor), "utf8").toString("base64url");
}

/**
 * The position a cursor string holds; invalid_input (field `cursor`) when it is not one this
 * service made, has the wrong number of keys, or belongs to a search with other parameters.
 */
export function decodeCursor(text: string, fingerprint: string, keyCount: number): PageCursor {
  const refuse = (why: string) =>
    new ServiceError("invalid_input", `cursor is not valid here: ${why}; start again without a cursor`, {
      field: "cursor",
    });
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error("not base64url");
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw refuse("it does not decode");
  }
  const cursor = value as Partial<PageCursor> | null;
  if (
    typeof cursor !== "object" ||
    cursor === null ||
    !Array.isArray(cursor.k) ||
    cursor.k.length !== keyCount ||
    !cursor.k.every((k) => (typeof k === "number" && Number.isFinite(k)) || typeof k === "string") ||
    (cursor.s !== undefined && (typeof cursor.s !== "string" || !/^[0-9a-f]{16}$/.test(cursor.s))) ||
    typeof cursor.f !== "string"
  ) {
    throw refuse("it does not decode");
  }
  if (cursor.f !== fingerprint) throw refuse("it was made for a search with other parameters");
  return cursor as PageCursor;
}
