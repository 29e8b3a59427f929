import fc from "fast-check";
import { expect, it } from "vitest";
import { z } from "zod";
import { adaptTool } from "../../src/edges/mcp/adapt-tool.ts";
import { tools } from "../../src/edges/mcp/tools/tools.ts";
import { useSolvingFixture } from "../attempts/support/solving-fixture.ts";
import { clientLines, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { seedUser } from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";
import { HOSTILE_NUMBERS, plausibleString } from "./support/hostile-values.ts";

/**
 * Every MCP tool, driven over the real endpoint by the real SDK client with arbitrary arguments of
 * the right shape (derived from the tool's advertised JSON Schema) and of the wrong shape
 * (arbitrary JSON): whatever arrives, the answer is a result or a tool error with a catalogue
 * code, never `internal`, never a protocol failure or a 5xx (issue 14, "One input guard").
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
};

/** A value fitting `schema` most of the time, near its bounds now and then. */
function fromSchema(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), plausibleString);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0)
    return fc.oneof(...alternatives.map((s) => fromSchema(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return plausibleString;
    case "integer":
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 2 ** 31) }),
        fc.constantFrom(...HOSTILE_NUMBERS),
      );
    case "number":
      return fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -1, 1e308));
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(schema.items ? fromSchema(schema.items, depth + 1) : fc.jsonValue(), { maxLength: 4 });
    case "object": {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0)
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 });
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of properties) record[key] = fromSchema(value, depth + 1);
      return fc.record(record, { requiredKeys: [] });
    }
    default:
      return fc.jsonValue();
  }
}

describeWithDatabase("evil/ every MCP tool with arbitrary arguments", () => {
  const f = useSolvingFixture();

  it("answers every tool call with a result or a catalogue error, never internal or a 5xx (property)", async () => {
    const root = await seedUser(f.services.sql, "root-prop", {
      admin: true,
      capabilities: ["author", "custom_verifier"],
    });
    const client: TestClient = await clientLines[0].connect(f.url, root.token);
    try {
      for (const tool of tools) {
        const schema = z.toJSONSchema(adaptTool(tool).input, { io: "input" }) as JsonSchema;
        const args = fc.oneof(
          { weight: 3, arbitrary: fromSchema(schema) },
          { weight: 1, arbitrary: fc.jsonValue() },
        );
        await fc.assert(
          fc.asyncProperty(args, async (value) => {
            const sent =
              value !== null && typeof value === "object" && !Array.isArray(value) ? value : { value };
            let answer: Awaited<ReturnType<TestClient["callTool"]>>;
            try {
              answer = await client.callTool(tool.name, sent as Record<string, unknown>);
            } catch (error) {
              // The one refusal below the tool: a body the HTTP parser refuses (a "__proto__" key), a 400.
              expect(String(error), `${tool.name} failed at the protocol level`).toMatch(
                /"code":"invalid_input".*"field":"body"|"field":"body".*"code":"invalid_input"/,
              );
              return;
            }
            if (answer.isError) {
              const body = JSON.parse(answer.content[0]?.text ?? "{}") as { error?: { code?: string } };
              expect({ tool: tool.name, code: body.error?.code }).not.toMatchObject({ code: "internal" });
              expect(typeof body.error?.code, `${tool.name}: ${answer.content[0]?.text}`).toBe("string");
            }
          }),
          { numRuns: Number(process.env.PROP_RUNS ?? 12) },
        );
      }
    } finally {
      await client.close();
    }
  }, 240_000);
});
