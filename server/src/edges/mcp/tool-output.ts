import { z } from "zod";

/**
 * The error envelope as every tool's outputSchema states it: the spec's `{error: {code,
 * message, ...}}`. Compact (the code a string, not the catalogue's enum) because every listed
 * tool carries it and the list is an agent's context; the catalogue is in the OpenAPI document.
 */
const toolErrorEnvelope = z.looseObject({ error: z.looseObject({ code: z.string(), message: z.string() }) });

/** What a tool whose result schema is not yet written (result-schemas.json) returns: one JSON object. */
export const anyToolResult = z.looseObject({});

/**
 * A tool's outputSchema for tools/list: its result schema or the error envelope, as one JSON
 * Schema (2020-12, the MCP default, so no `$schema` is sent). Schemas with a registry id become
 * `$defs` at the root, where their `$ref`s point.
 */
export function outputJsonSchema(result: z.ZodType<object>): Record<string, unknown> {
  const toJson = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: "output", target: "draft-2020-12", unrepresentable: "any" });
  const { $schema: _, $defs, ...resultJson } = toJson(result);
  const { $schema: __, ...errorJson } = toJson(toolErrorEnvelope);
  return compactJsonSchema(
    { type: "object", anyOf: [resultJson, errorJson], ...($defs !== undefined && { $defs }) },
    { descriptions: false },
  ) as Record<string, unknown>;
}

/** zod's bounds of a plain `z.number().int()`: JavaScript's safe integers, which say nothing to a client. */
const SAFE_INTEGER_BOUNDS = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/**
 * A JSON Schema without what says nothing: `additionalProperties: {}` and empty `properties`
 * (both the default), the safe-integer bounds zod puts on every integer, and, when
 * `descriptions` is false, descriptions (a result's fields are described in docs/). The same
 * validation, fewer characters of an agent's context; the meaning is unchanged.
 */
export function compactJsonSchema(schema: unknown, options: { descriptions: boolean }): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compactJsonSchema(item, options));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    const isEmptyObject =
      value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
    if ((key === "additionalProperties" || key === "properties") && isEmptyObject) continue;
    if (key === "minimum" && value === SAFE_INTEGER_BOUNDS.minimum) continue;
    if (key === "maximum" && value === SAFE_INTEGER_BOUNDS.maximum) continue;
    if (key === "description" && !options.descriptions && typeof value === "string") continue;
    // Under `properties` and `$defs` the keys are names, not keywords: keep them all.
    out[key] =
      key === "properties" || key === "$defs"
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).map(([name, sub]) => [
              name,
              compactJsonSchema(sub, options),
            ]),
          )
        : compactJsonSchema(value, options);
  }
  return out;
}
