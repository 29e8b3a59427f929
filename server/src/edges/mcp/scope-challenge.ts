import type { AuthInfo, ScopeChallenge } from "@modelcontextprotocol/server";
import { Scope } from "@svc/schemas";
import { callerOf } from "./mcp-caller.ts";
import type { Tool } from "./tools/tool.ts";

/**
 * MCP's step-up authorization for a tool call an OAuth token's scope does not cover: the SDK's
 * transport answers it HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="..."` (RFC 6750 section 3.1), naming every scope the token holds plus the one the tool
 * needs, so the client re-authorizes for the union and retries. An operator-issued token cannot
 * be re-authorized: it gets the tool error with the operator's advice instead (callTool).
 */
export function scopeChallenge(tool: Tool, authInfo: AuthInfo | undefined): ScopeChallenge | undefined {
  if (authInfo === undefined) return undefined;
  const { principal } = callerOf(authInfo);
  if (principal.via !== "oauth_token" || principal.scopes.includes(tool.scope)) return undefined;
  const wanted = new Set([...principal.scopes, tool.scope]);
  const [first = tool.scope, ...rest] = Object.values(Scope).filter((scope) => wanted.has(scope));
  return {
    scopes: [first, ...rest],
    errorDescription: `${tool.name} needs the ${tool.scope} scope: re-authorize this client with it`,
  };
}
