import type { StandardSchemaWithJSON, ToolAnnotations } from "@modelcontextprotocol/server";
import { z } from "zod";
import { passthroughSchema } from "./passthrough-schema.ts";
import { toolAnnotations } from "./tool-annotations.ts";
import { type Tool, ToolKind } from "./tools/tool.ts";
import { WORKING_ATTEMPT_PARAMETER, workingAttemptField } from "./working-attempt.ts";

/** A Tool prepared once for the MCP endpoint: what every request registers and validates with. */
export interface AdaptedTool {
  tool: Tool;
  /** What call arguments are validated with: the tool's schema, strict, plus working_attempt_id on reads. */
  input: z.ZodObject;
  /** Whether the adapter added `working_attempt_id`, so it comes off before `run`. */
  stripsWorkingAttempt: boolean;
  /** The top-level fields the tool accepts, named when a caller sends an unknown one. */
  acceptedFields: string[];
  /** What `registerTool` gets: the advertised schema accepts anything, the adapter validates. */
  inputSchema: StandardSchemaWithJSON;
  annotations: ToolAnnotations;
}

/**
 * Prepares a tool: every read tool but a private read accepts an optional `working_attempt_id` (spec 4.1), and
 * unknown fields are refused unless the tool's schema declares a catchall, so a misspelt field is
 * named instead of silently ignored. The JSON Schema is built here, once per process.
 */
export function adaptTool(tool: Tool): AdaptedTool {
  let input: z.ZodObject = tool.input.def.catchall === undefined ? tool.input.strict() : tool.input;
  const stripsWorkingAttempt =
    tool.kind === ToolKind.read &&
    tool.privateRead !== true &&
    !Object.hasOwn(tool.input.shape, WORKING_ATTEMPT_PARAMETER);
  if (stripsWorkingAttempt) input = input.extend({ [WORKING_ATTEMPT_PARAMETER]: workingAttemptField });
  return {
    tool,
    input,
    stripsWorkingAttempt,
    acceptedFields: Object.keys(input.shape),
    inputSchema: passthroughSchema(z.toJSONSchema(input, { io: "input", target: "draft-2020-12" })),
    annotations: toolAnnotations(tool),
  };
}
