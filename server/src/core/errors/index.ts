export { ErrorCode } from "./error-code.ts";
export { type ErrorBody, type ErrorDetails, ServiceError } from "./service-error.ts";
