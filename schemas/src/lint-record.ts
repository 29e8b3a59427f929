import type { LintCode, NoteCode } from "./error-catalogue.ts";

/**
 * Lint records: what `svc lint`, the service's validator, the GitHub App and the Action report.
 * A wire type: `json/lint-record.schema.json` describes the same record, and a test checks that
 * its `code` enum agrees with LintCode.
 *
 * An error blocks publication; a note is advice and never blocks. Both carry the package-relative
 * `file` ('/'-separated) and a JSON Pointer `path` into it ("" for the whole file or non-JSON files).
 * The closed sets of lint error and note codes, with their meanings, are in the error catalogue.
 */

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
