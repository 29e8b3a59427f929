import type { ToolContext } from "../tools/tool.ts";

/** One entry of a resource read's `contents`. Text when the bytes are UTF-8, else base64 `blob`. */
export interface ResourceContent {
  uri: string;
  mimeType: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

/**
 * One `svc://` resource template (spec 4.1 Resources). The MCP endpoint matches a URI against
 * `uriTemplate` (RFC 6570, `{+path}` may hold slashes), strips a trailing `working_attempt_id`
 * query parameter first, and calls `read` with the matched variables. `read` throws a
 * ServiceError `not_found` for anything unknown or not visible to the caller, never a guess.
 */
export interface ResourceTemplate {
  name: string;
  uriTemplate: string;
  title: string;
  description: string;
  read(context: ToolContext, uri: string, variables: Record<string, string>): Promise<ResourceContent[]>;
  /** Concrete resources to include in resources/list (for example recent SKILL.md files). */
  list?(context: ToolContext): Promise<Array<{ uri: string; name: string; mimeType: string }>>;
}
