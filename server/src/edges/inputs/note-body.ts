import { z } from "zod";
import { MAX_NOTE_CHARS } from "../../notes/note.ts";

/** A note body as tools accept it: Markdown, 1 to 20000 characters, not only whitespace. */
export function noteBodyField(description: string) {
  return z
    .string()
    .max(MAX_NOTE_CHARS, `must be at most ${MAX_NOTE_CHARS} characters: split it into several notes`)
    .refine((text) => text.trim().length > 0, "must not be empty: write what you did and found")
    .describe(description);
}
