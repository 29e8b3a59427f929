import { ErrorCode } from "@svc/schemas";

/** Structured details carried beside the code and message (field names, ids, limits). */
export type ErrorDetails = Readonly<Record<string, unknown>>;

/** The wire form of every service error (decisions.md, "Service"). */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; [detail: string]: unknown };
}

/**
 * An error the service reports to its caller: a catalogued `code`, its HTTP `status`, a message
 * that says what was wrong and how to fix it, and structured `details`. Anything thrown that is
 * not a ServiceError is the service's own failure and is reported as `internal`.
 */
export class ServiceError extends Error {
  override name = "ServiceError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.code = code;
    this.status = ErrorCode[code].status;
    this.details = details;
  }

  /** `{error: {code, message, ...details}}`; details never override the code or the message. */
  toBody(): ErrorBody {
    return { error: { ...this.details, code: this.code, message: this.message } };
  }
}
