import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../src/check-schema.ts";
import { createAjv } from "../src/create-ajv.ts";
import { schemaDocument } from "../src/index.ts";
import { loadSchemas } from "../src/load-schemas.ts";
import { loadedSchemas } from "../src/schema-document.ts";
import { schemaId, schemaNames } from "../src/schema-name.ts";

describe("schema files", () => {
  it("every schema name has a file in schemas/json", () => {
    const files = readdirSync(new URL("../json/", import.meta.url));
    for (const name of schemaNames) expect(files).toContain(`${name}.schema.json`);
  });

  it("every file is valid against the draft 2020-12 meta-schema and carries $id, title and description", () => {
    const ajv = createAjv();
    for (const [name, document] of loadSchemas()) {
      expect(ajv.validateSchema(document), `${name}: ${ajv.errorsText()}`).toBe(true);
      expect(document.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(document.$id).toBe(schemaId(name));
      expect(typeof document.title).toBe("string");
      expect(typeof document.description).toBe("string");
    }
  });

  it.each(schemaNames)("%s compiles in strict mode", (name) => {
    // On ajv itself: compileSchema hands out the validators built ahead of time when there are.
    const ajv = createAjv();
    for (const document of loadedSchemas().values()) ajv.addSchema(document, undefined, undefined, false);
    expect(ajv.getSchema(schemaId(name))).toBeTypeOf("function");
    expect(() => compileSchema(name)).not.toThrow();
  });

  it("schemaDocument returns a copy, so changing it does not change the schema", () => {
    const document = schemaDocument("campaign") as { title: string };
    document.title = "changed";
    expect((schemaDocument("campaign") as { title: string }).title).toBe("campaign.json");
  });
});
