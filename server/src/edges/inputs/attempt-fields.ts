import { z } from "zod";

/** An Attempt id field of a tool input. */
export function attemptIdField(description: string) {
  return z
    .string()
    .regex(/^att_[0-9a-z]{10,32}$/, "must be an Attempt id: att_ and 10 to 32 characters of 0-9 and a-z")
    .describe(description);
}

/** A record id field with the given prefix (art, nte, sub). */
export function recordIdField(prefix: string, noun: string, description: string) {
  return z
    .string()
    .regex(
      new RegExp(`^${prefix}_[0-9a-z]{10,32}$`),
      `must be ${noun} id: ${prefix}_ and 10 to 32 characters of 0-9 and a-z`,
    )
    .describe(description);
}
