import { readFileSync } from "node:fs";
import type {
  Tool as ListedTool,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { passthroughSchema } from "./passthrough-schema.ts";
import { toolAnnotations } from "./tool-annotations.ts";
import { anyToolResult, compactJsonSchema, outputJsonSchema } from "./tool-output.ts";
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
  /** The result as the endpoint sends it: the tool's `output` plus what the adapter adds to reads. */
  output: z.ZodType<object>;
  /** What `registerTool` gets as outputSchema: the result or the error envelope. */
  outputSchema: StandardSchemaWithJSON;
  annotations: ToolAnnotations;
  /** The tool as tools/list shows it, built once. */
  listed: ListedTool;
}

/** What the adapter adds beside a read's result (callTool): the working Attempt's check, a hint. */
const readExtras = {
  working_attempt: z.looseObject({}).optional(),
  hint: z.string().optional(),
};

/**
 * Prepares a tool: every read tool but a private read accepts an optional `working_attempt_id` (spec 4.1), and
 * unknown fields are refused unless the tool's schema declares a catchall, so a misspelt field is
 * named instead of silently ignored. The JSON Schemas are built here, once per process.
 */
export function adaptTool(tool: Tool): AdaptedTool {
  let input: z.ZodObject = tool.input.def.catchall === undefined ? tool.input.strict() : tool.input;
  const stripsWorkingAttempt =
    tool.kind === ToolKind.read &&
    tool.privateRead !== true &&
    !Object.hasOwn(tool.input.shape, WORKING_ATTEMPT_PARAMETER);
  if (stripsWorkingAttempt) input = input.extend({ [WORKING_ATTEMPT_PARAMETER]: workingAttemptField });
  let output: z.ZodType<object> = tool.output ?? resultSchemaOf(tool.name);
  // A loose result already admits them; a strict one is told.
  const declared = tool.output;
  const strict = declared?.def.catchall?._zod.def.type === "never";
  if (declared && strict && tool.kind === ToolKind.read && tool.privateRead !== true) {
    const missing = Object.entries(readExtras).filter(([key]) => !Object.hasOwn(declared.shape, key));
    if (missing.length > 0) output = declared.extend(Object.fromEntries(missing));
  }
  const inputJson = compactJsonSchema(z.toJSONSchema(input, { io: "input", target: "draft-2020-12" }), {
    descriptions: true,
  }) as Record<string, unknown>;
  const outputJson = outputJsonSchema(output);
  const annotations = toolAnnotations(tool);
  return {
    tool,
    input,
    stripsWorkingAttempt,
    acceptedFields: Object.keys(input.shape),
    inputSchema: passthroughSchema(inputJson),
    output,
    outputSchema: passthroughSchema(outputJson),
    annotations,
    listed: {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputJson as ListedTool["inputSchema"],
      outputSchema: outputJson as ListedTool["outputSchema"],
      annotations,
    },
  };
}

/** The schemas read from the tools' types, by tool name (read once, as JSON: no type to check). */
const resultSchemas = JSON.parse(
  readFileSync(new URL("./tools/result-schemas.json", import.meta.url), "utf8"),
) as Record<string, z.core.JSONSchema.JSONSchema>;

/**
 * The result schema of a tool that declares no zod `output`: the one read from the TypeScript
 * types its `run` returns (scripts/result-schemas.ts, kept in tools/result-schemas.json; loose, so
 * what the adapter adds to a read passes). A tool not yet in the file declares any JSON object
 * (result-schemas.test.ts fails until the file is written again).
 */
function resultSchemaOf(name: string): z.ZodType<object> {
  const json = resultSchemas[name];
  return json === undefined ? anyToolResult : (z.fromJSONSchema(json) as z.ZodType<object>);
}
