import { z } from "zod";

/**
 * The error envelope as every tool's outputSchema states it: the spec's `{error: {code,
 * message, ...}}`. Compact (the code a string, not the catalogue's enum) because every listed
 * tool carries it and the list is an agent's context; the catalogue is in the OpenAPI document.
 */
const toolErrorEnvelope = z.object({
  error: z.looseObject({ code: z.string(), message: z.string() }),
});

/** What a tool without a declared `output` returns: one JSON object. */
export const anyToolResult = z.looseObject({});

/**
 * A tool's outputSchema for tools/list: its result schema or the error envelope, as one JSON
 * Schema (2020-12, the MCP default, so no `$schema` is sent). Schemas with a registry id become
 * `$defs` at the root, where their `$ref`s point.
 */
export function outputJsonSchema(result: z.ZodObject): Record<string, unknown> {
  const toJson = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: "output", target: "draft-2020-12", unrepresentable: "any" });
  const { $schema: _, $defs, ...resultJson } = toJson(result);
  const { $schema: __, ...errorJson } = toJson(toolErrorEnvelope);
  return {
    type: "object",
    anyOf: [resultJson, errorJson],
    ...($defs !== undefined && { $defs }),
  };
}
