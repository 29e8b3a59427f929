/**
 * The service's closed catalogue of error codes: what a tool error, an HTTP error body or an
 * operator command reports as `{"error": {"code", "message", ...details}}`. Codes are stable and
 * never reused; the specification's own codes (section 7) are used where it names them. Later
 * work adds codes here, each with its HTTP status and meaning.
 */
export const ErrorCode = {
  /** The request is malformed or a value breaks a rule; the message names the field and the rule. */
  invalid_input: { status: 400, meaning: "a value in the request is missing or breaks a rule" },
  /** No credential, or one that is unknown, malformed or revoked. */
  unauthorized: { status: 401, meaning: "a valid bearer token is needed" },
  /** The credential is valid but its scope, its capabilities or the user's live role do not allow this. */
  forbidden: { status: 403, meaning: "the caller may not do this" },
  /** The named record does not exist or is not visible to the caller; the service never guesses. */
  not_found: { status: 404, meaning: "no such record" },
  /** The request collides with existing state (a taken handle, a duplicate grant). */
  conflict: { status: 409, meaning: "the request conflicts with existing state" },
  /** The service cannot answer yet: the database is unreachable or not migrated. */
  unavailable: { status: 503, meaning: "the service is not ready" },
  /** The service's own machinery failed; the request may be retried. */
  internal: { status: 500, meaning: "the service failed" },
} as const satisfies Record<string, { status: number; meaning: string }>;
export type ErrorCode = keyof typeof ErrorCode;
