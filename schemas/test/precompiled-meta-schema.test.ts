import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { standaloneMetaSchema } from "../src/standalone-validators.ts";
import { createUserSchemaAjv } from "../src/user-schema.ts";

/** Author schemas good and bad: meta-schema breaches, compile failures, other `$schema`s. */
const SCHEMAS: unknown[] = [
  true,
  false,
  {},
  { type: "object", properties: { score: { type: "integer", minimum: 0 } }, required: ["score"] },
  { type: "strin" },
  { properties: { a: { type: 3 } } },
  { minLength: -1, maxItems: "x" },
  { $defs: { x: { $ref: 5 } } },
  { items: [{}] },
  { $anchor: "1x" },
  { format: 5 },
  { dependentRequired: { a: [1] } },
  { properties: { a: { properties: { b: { enum: "x" } } } } },
  { unevaluatedProperties: { type: "nope" } },
  { $vocabulary: { "x y": 1 } },
  { pattern: "(" },
  { patternProperties: { "(": {} } },
  { $ref: "#/$defs/missing" },
  { $id: "https://example.com/a", $defs: { b: { $anchor: "same" }, c: { $anchor: "same" } } },
  { $schema: "https://json-schema.org/draft/2020-12/schema", type: "nope" },
  { $schema: "", type: "nope" },
  { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
  { $schema: 7, type: "object" },
  { $id: "https://json-schema.org/draft/2020-12/schema" },
  { "x-annotation": { anything: true }, type: "string", format: "uri" },
];

/** What compiling `schema` gives: its refusal message, or "compiles". */
function compileOutcome(metaSchema: ValidateFunction | null, schema: unknown): string {
  try {
    createUserSchemaAjv({}, metaSchema).compile(schema as object);
    return "compiles";
  } catch (error) {
    return (error as Error).message;
  }
}

describe("the precompiled draft 2020-12 meta-schema (the svc bundle's)", () => {
  let dir: string;
  let metaSchema: ValidateFunction;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-meta-schema-"));
    const file = join(dir, "meta.mjs");
    // The bundle's banner gives the standalone code its require(); a plain module needs one.
    writeFileSync(
      file,
      `import { createRequire } from "node:module";\nconst require = createRequire(${JSON.stringify(import.meta.url)});\n${standaloneMetaSchema()}`,
    );
    ({ precompiledMetaSchema: metaSchema } = await import(pathToFileURL(file).href));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("accepts and refuses what Ajv's own meta-schema does, with the same errors", () => {
    const ajv = createUserSchemaAjv({}, null);
    const checked = SCHEMAS.filter(
      (s): s is Record<string, unknown> =>
        typeof s === "object" &&
        [undefined, "", "https://json-schema.org/draft/2020-12/schema"].includes(
          (s as { $schema?: unknown }).$schema as string,
        ),
    );
    expect(checked.length).toBeGreaterThan(20);
    for (const schema of checked) {
      const own = ajv.validateSchema(schema) as boolean;
      const ownText = ajv.errorsText();
      expect(metaSchema(schema), JSON.stringify(schema)).toBe(own);
      expect(ajv.errorsText(metaSchema.errors), JSON.stringify(schema)).toBe(ownText);
    }
  });

  it("leaves every author schema's compile outcome and message as they were", () => {
    for (const schema of SCHEMAS) {
      expect(compileOutcome(metaSchema, schema), JSON.stringify(schema)).toBe(compileOutcome(null, schema));
    }
  });

  it("refuses a schema that breaks the meta-schema with Ajv's message", () => {
    expect(compileOutcome(metaSchema, { type: "strin" })).toMatch(/^schema is invalid: data\/type must be/);
  });
});
