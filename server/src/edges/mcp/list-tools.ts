import type { Tool as ListedTool } from "@modelcontextprotocol/server";
import { liveRole } from "../../users/live-role.ts";
import type { AdaptedTool } from "./adapt-tool.ts";
import type { McpCaller } from "./mcp-caller.ts";

/**
 * tools/list for one caller: the tools of the toolsets the request chose (toolsets.ts) that the
 * token's scope and the user's live roles can call. A read-only token sees no write tool; a user
 * without a tool's role (administrator, author) does not see it. The roles are read live, once,
 * and only when a candidate tool names one.
 */
export async function listTools(adapted: readonly AdaptedTool[], caller: McpCaller): Promise<ListedTool[]> {
  const { principal, toolsets } = caller;
  const candidates = adapted.filter(
    ({ tool }) => toolsets.has(tool.toolset) && principal.scopes.includes(tool.scope),
  );
  const roles = candidates.some(({ tool }) => tool.role !== undefined)
    ? (await liveRole(caller.services.sql, principal.user.id)).roles
    : [];
  return candidates
    .filter(({ tool }) => tool.role === undefined || roles.includes(tool.role))
    .map(({ listed }) => listed);
}
