import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  RESULT_SCHEMAS_FILE,
  readResultSchemas,
  resultSchemasText,
  toolFiles,
} from "../../../../scripts/result-schemas.ts";
import { adaptTool } from "../../../src/edges/mcp/adapt-tool.ts";
import { tools } from "../../../src/edges/mcp/tools/tools.ts";

describe("the tools' result schemas", () => {
  it("are what the tools' types say: run `npm run generate:result-schemas` after changing a result", () => {
    const fresh = resultSchemasText(readResultSchemas(toolFiles()));
    expect(readFileSync(RESULT_SCHEMAS_FILE, "utf8")).toBe(fresh);
  }, 60_000);

  it("give every tool a real outputSchema: its result's fields, not just any JSON object", () => {
    const generic = tools.filter((tool) => {
      const [result] = (adaptTool(tool).listed.outputSchema as { anyOf: Branch[] }).anyOf;
      return result === undefined || !namesFields(result);
    });
    expect(generic.map((tool) => tool.name)).toEqual([]);
  });
});

interface Branch {
  properties?: object;
  anyOf?: Branch[];
  $ref?: string;
}

/** Whether a schema names fields: its own, a named definition's, or each alternative's. */
function namesFields(schema: Branch): boolean {
  if (schema.$ref !== undefined) return true;
  if (schema.anyOf !== undefined) return schema.anyOf.every(namesFields);
  return schema.properties !== undefined && Object.keys(schema.properties).length > 0;
}
