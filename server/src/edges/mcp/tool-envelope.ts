import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ErrorBody } from "../../core/errors/service-error.ts";

/**
 * A tool result as spec 4.1 wants it: one JSON envelope as text content, and the same object as
 * `structuredContent` for clients that read it. An error is the `{error: {...}}` body with
 * `isError: true`.
 */
export function toolEnvelope(body: Record<string, unknown> | ErrorBody, isError = false): CallToolResult {
  const text = JSON.stringify(body);
  return {
    content: [{ type: "text", text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
    ...(isError && { isError: true }),
  };
}
