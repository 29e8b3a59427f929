import type { IdPrefix } from "@svc/schemas";
import { randomChars } from "./random-chars.ts";

const ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** A new random id: the prefix, `_` and 20 characters of [0-9a-z] (about 103 bits). */
export function randomId(prefix: IdPrefix): string {
  return `${prefix}_${randomChars(ID_ALPHABET, 20)}`;
}
