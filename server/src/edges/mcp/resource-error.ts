import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { ServiceError } from "../../core/errors/service-error.ts";
import { internalError } from "./internal-error.ts";
import type { McpCaller } from "./mcp-caller.ts";

/**
 * The MCP error for a failed resource request. Resource reads have no tool-error form, so the
 * failure is a JSON-RPC error: its message starts with the URI, and `data` carries the URI and
 * the catalogue body `{code, message, ...details}`. The service's own failures are InternalError
 * (-32603); everything else, unknown URIs included, is InvalidParams (-32602), the code the
 * 2026-07-28 revision gives a resource that does not exist.
 */
export function resourceError(caller: McpCaller, uri: string | undefined, error: unknown): ProtocolError {
  const failure =
    error instanceof ServiceError
      ? error
      : internalError(caller, error, uri ? { uri } : { method: "resources/list" });
  const { error: body } = failure.toBody();
  const code =
    failure.code === "internal" ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
  return new ProtocolError(code, uri ? `${uri}: ${body.message}` : body.message, {
    ...(uri !== undefined && { uri }),
    error: body,
  });
}
