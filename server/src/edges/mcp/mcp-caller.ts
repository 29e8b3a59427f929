import type { AuthInfo } from "@modelcontextprotocol/server";
import type { ToolContext } from "./tools/tool.ts";
import type { Toolset } from "./toolsets.ts";

/** Where the caller rides inside the SDK's pass-through `authInfo.extra`. */
const CALLER_KEY = "svc.caller";

/**
 * Everything a tool or resource call on /mcp runs with: the ToolContext plus the HTTP request id,
 * so an `internal` error can name the log line that holds its details.
 */
export interface McpCaller extends ToolContext {
  requestId: string;
  /** The toolsets the request chose (toolsets.ts): what tools/list shows. */
  toolsets: ReadonlySet<Toolset>;
  /** The HTTP connection the request came on, for a request held open (events/stream). */
  connection?: McpConnection;
}

/** What a request held open watches of its connection and of the server. */
export interface McpConnection {
  /** Aborted when the server begins to close. */
  closing: AbortSignal;
  /** Bytes the socket has taken so far. */
  bytesTaken(): number;
  /** Whether the request's bearer token is still valid now. */
  stillAuthorized(): Promise<boolean>;
  /** The stream poll interval; tests shorten it. */
  pollMs?: number;
}

/**
 * The SDK's `authInfo` for an authenticated caller. The SDK passes it through untouched to the
 * server factory of both protocol eras; it never derives it from headers itself.
 */
export function callerAuthInfo(caller: McpCaller, token: string, resourceMetadataUrl: string): AuthInfo {
  return {
    token,
    clientId: caller.principal.user.id,
    scopes: [...caller.principal.scopes],
    // Named in the step-up challenge (scopeChallenge), as in the 401's.
    resourceMetadataUrl,
    extra: { [CALLER_KEY]: caller },
  };
}

/** The caller `callerAuthInfo` stored; throws when the route did not authenticate the request. */
export function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.[CALLER_KEY] as McpCaller | undefined;
  // The /mcp route authenticates before the SDK sees the request, so this is a wiring bug.
  if (!caller) throw new Error("an MCP request reached the server factory without an authenticated caller");
  return caller;
}
