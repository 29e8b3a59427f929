import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";

/**
 * A Standard Schema that advertises a fixed JSON Schema and accepts any value. The SDK validates
 * `tools/call` arguments with the schema it is given and answers a failure in its own plain-text
 * shape; the adapter validates with zod itself so every failure is an `invalid_input` envelope.
 * The JSON Schema is computed once, not on every `tools/list`.
 */
export function passthroughSchema(jsonSchema: Record<string, unknown>): StandardSchemaWithJSON {
  return {
    "~standard": {
      version: 1,
      vendor: "svc",
      validate: (value) => ({ value }),
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  };
}
