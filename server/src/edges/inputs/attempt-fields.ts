import { IdPrefix, idPattern } from "@svc/schemas";
import { z } from "zod";

/** An Attempt id field of a tool input. */
export function attemptIdField(description: string) {
  return z
    .string()
    .regex(idPattern(IdPrefix.attempt), "must be an Attempt id: att_ and 10 to 32 characters of 0-9 and a-z")
    .describe(description);
}

/** A string that must be an id with `prefix` (spec section 2); `noun` names the record in the refusal. */
export function idField(prefix: IdPrefix, noun: string) {
  return z
    .string()
    .regex(idPattern(prefix), `must be ${noun} id: ${prefix}_ and 10 to 32 characters of 0-9 and a-z`);
}

/** A record id field with the given prefix (art, nte, sub). */
export function recordIdField(prefix: IdPrefix, noun: string, description: string) {
  return idField(prefix, noun).describe(description);
}
