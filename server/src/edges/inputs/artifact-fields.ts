import { hasBidiControl } from "@svc/app";
import { z } from "zod";

/**
 * A file name as an Artifact keeps it: 1 to 255 characters, one path segment (no `/` or `\`),
 * no control characters, no bidirectional formatting characters (they disguise a name in a
 * listing: `a\u202Etxt.exe` shows as `aexe.txt`), not `.` or `..`. It is a label and the name the
 * checker mounts.
 */
export const artifactFilename = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (name) =>
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      !/[/\\\u0000-\u001f\u007f]/.test(name) && !hasBidiControl(name) && name !== "." && name !== "..",
    "must be a plain file name: no / or \\, no control or bidirectional formatting characters, not . or ..",
  )
  .describe(
    "The file name, e.g. answer.json; its extension gives the media type when media_type is omitted.",
  );

/** A media type `type/subtype` (parameters allowed), at most 120 characters. */
export const artifactMediaType = z
  .string()
  .max(120)
  .regex(
    /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i,
    "must be a media type such as text/plain or application/json",
  )
  .optional()
  .describe("The media type; default from the file name's extension (unknown: application/octet-stream).");
