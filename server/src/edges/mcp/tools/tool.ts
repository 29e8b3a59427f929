import type { Role, Scope } from "@svc/schemas";
import type { z } from "zod";
import type { Services } from "../../../core/services/services.ts";
import type { Principal } from "../../../users/principal.ts";
import type { Toolset } from "../toolsets.ts";

/**
 * How a tool is annotated (spec 4.1): read tools are read-only; write tools change state;
 * destructive ones end something for good: the spec names `withdraw_*`,
 * `decline_review_assignment` and `submit_review_response`. Archiving and unsealing are writes,
 * as the spec marks them (issue 33).
 */
export const ToolKind = {
  read: "read",
  write: "write",
  destructive: "destructive",
} as const;
export type ToolKind = (typeof ToolKind)[keyof typeof ToolKind];

/** What a tool call runs with: the service, who is calling, and the public origin for links. */
export interface ToolContext {
  services: Services;
  principal: Principal;
  /** The public base address (`SVC_BASE_URL`, else the request's origin), no trailing slash. */
  baseUrl: string;
}

/**
 * One agent tool: a thin adapter from validated input to a domain function. The MCP endpoint
 * registers every tool in `tools.ts`; the token's scope is checked before `run`, and `run` checks
 * roles and capabilities live. `run` returns the result envelope (one JSON object) or throws a
 * ServiceError, which the endpoint turns into a tool error `{error: {code, message, ...}}`.
 */
export interface Tool<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The token scope the tool needs: `read` for read tools, `contribute` for everything else. */
  scope: Scope;
  kind: ToolKind;
  /** The one named set the tool is listed in (toolsets.ts, docs/agents.md); clients choose sets. */
  toolset: Toolset;
  /**
   * The live role without which every call is refused (administrator tools, author-only ones):
   * tools/list hides the tool from users without it. Leave it out when `run` decides per object.
   */
  role?: Role;
  /**
   * A private read (the work draft reads of spec 4.1) takes no `working_attempt_id`: what it shows
   * is the caller's own unpublished work, never an Attempt's context.
   */
  privateRead?: boolean;
  input: Input;
  /**
   * The result's schema, one line: `output: someResultSchema`. tools/list advertises it as the
   * tool's outputSchema (with the error envelope) and the tool's `/api` route serializes through it.
   * Without it the schema is read from the TypeScript type `run` returns
   * (`npm run generate:result-schemas`, kept in result-schemas.json); declare one to say less
   * (the default toolsets' results name only the fields an agent relies on, for its context),
   * loose (z.looseObject) so a field the domain adds is served before it is described.
   */
  output?: z.ZodObject;
  /**
   * A read tool's `GET /api` twin (spec 4.1: general reads under `/api/*`), REST-style: the
   * collection or the record it reads, each `:field` segment a field of the input taken from the
   * path (`/api/attempts/:attempt_id`), every other field a query parameter. tool-routes.ts
   * generates it from the tool, unless `apiRouteByHand`; every read tool names one.
   */
  apiRoute?: string;
  /** The route at `apiRoute` is written by hand (edges/http), with its own parameter names. */
  apiRouteByHand?: true;
  run(context: ToolContext, input: z.output<Input>): Promise<Record<string, unknown>>;
}

/** Declares a tool with its input type inferred from its schema. */
export function defineTool<Input extends z.ZodObject>(tool: Tool<Input>): Tool<Input> {
  return tool;
}
