import type { ToolAnnotations } from "@modelcontextprotocol/server";
import type { Tool } from "./tools/tool.ts";

/**
 * The MCP annotations of a tool from its kind (spec 4.1): read tools are read-only and
 * idempotent; write tools are writes and, since MCP presumes a write destructive unless told
 * otherwise, explicitly not destructive; destructive tools (withdraw_*, decline, submit review)
 * are marked so. No tool reaches outside the service.
 */
export function toolAnnotations(tool: Tool): ToolAnnotations {
  // The title is the tool's own (tools/list carries it once, beside the annotations).
  const base = { openWorldHint: false };
  switch (tool.kind) {
    case "read":
      return { ...base, readOnlyHint: true, destructiveHint: false, idempotentHint: true };
    case "write":
      return { ...base, readOnlyHint: false, destructiveHint: false };
    case "destructive":
      return { ...base, readOnlyHint: false, destructiveHint: true };
    default: {
      const never: never = tool.kind;
      throw new Error(`Unhandled tool kind: ${never}`);
    }
  }
}
