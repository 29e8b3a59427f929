import { ServiceError } from "../../core/errors/service-error.ts";
import type { McpCaller } from "./mcp-caller.ts";

/**
 * Logs an unexpected failure with its stack under the request id and returns the `internal`
 * error the caller sees, which names that id and nothing of the failure itself.
 */
export function internalError(
  caller: McpCaller,
  error: unknown,
  context: Record<string, string>,
): ServiceError {
  caller.services.log.error({ err: error, reqId: caller.requestId, ...context }, "MCP call failed");
  return new ServiceError(
    "internal",
    `the service failed; the log has the details under request ${caller.requestId}`,
  );
}
