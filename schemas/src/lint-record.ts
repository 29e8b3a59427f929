/**
 * Lint records: what `svc lint`, the service's validator, the GitHub App and the Action report.
 * A wire type: `json/lint-record.schema.json` describes the same record, and a test checks that
 * its `code` enum agrees with LintCode.
 *
 * An error blocks publication; a note is advice and never blocks. Both carry the package-relative
 * `file` ('/'-separated) and a JSON Pointer `path` into it ("" for the whole file or non-JSON files).
 */

/** The closed set of lint error codes (spec section 7). */
export const LintCode = {
  /** A file the package format requires is absent. */
  missing_file: "missing_file",
  /** A .json file does not parse, or a SKILL.md frontmatter does not parse. */
  invalid_json: "invalid_json",
  /** A file or record does not match its JSON Schema (type, enum, length, pattern, unknown key). */
  schema_violation: "schema_violation",
  /** A review protocol breaks one of the numbered static rules 1 to 16 (`rule` holds the number). */
  rule_violation: "rule_violation",
  /** A reference (skill, protocol, stage, slot, fixture file) names something that does not exist. */
  not_found: "not_found",
  /** Reference bindings, sealing or fixture bindings do not fit the Contract. */
  binding_error: "binding_error",
  /** An implementation names a runtime, builtin or image this service cannot run as written. */
  unsupported_runtime: "unsupported_runtime",
  /** A stated content_hash or size_bytes differs from the bytes in the package. */
  hash_mismatch: "hash_mismatch",
  /** A file sits where the package format gives its name a meaning, but the name maps to nothing. */
  unknown_file: "unknown_file",
} as const;
export type LintCode = (typeof LintCode)[keyof typeof LintCode];

/** The closed set of note codes: advice that never blocks publication. */
export const NoteCode = {
  /** context.md is read by authors only; it is never published. */
  not_published: "not_published",
  /** A file the package format does not know; it is ignored. */
  ignored_file: "ignored_file",
  /** A linked binding's hash and size are the author's statement; sandbox stages never mount it. */
  linked_binding: "linked_binding",
  /** A field that is accepted and ignored. */
  deprecated_field: "deprecated_field",
  /** A sandbox stage lacks a verified or a refuted conformance fixture. */
  fixture_coverage: "fixture_coverage",
} as const;
export type NoteCode = (typeof NoteCode)[keyof typeof NoteCode];

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
