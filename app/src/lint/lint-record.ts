import { LintCode, NoteCode } from "@svc/schemas";

/**
 * Lint records: what `svc lint`, the service's validator, the GitHub App and the Action report.
 *
 * An error blocks publication; a note is advice and never blocks. Both carry the package-relative
 * `file` ('/'-separated) and a JSON Pointer `path` into it ("" for the whole file or non-JSON files).
 */

/** The closed sets of lint error and note codes, with their meanings, are in the error catalogue. */
export { LintCode, NoteCode };

export interface LintRecord {
  /** Package-relative path of the offending file, '/'-separated. */
  file: string;
  /** JSON Pointer (RFC 6901) into the file; "" for the whole file or a non-JSON file. */
  path: string;
  code: LintCode;
  /** What is wrong and how to fix it. */
  message: string;
  /** The review-protocol rule number (1 to 16), only on `rule_violation`. */
  rule?: number;
}

export interface LintNote {
  file: string;
  path: string;
  code: NoteCode;
  message: string;
}

/** Builds a JSON Pointer from unescaped segments: pointer("stages", 0, "key") -> "/stages/0/key". */
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => `/${String(s).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}
