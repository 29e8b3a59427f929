export { ErrorCode } from "@svc/schemas";
export { type ErrorBody, type ErrorDetails, ServiceError } from "./service-error.ts";
