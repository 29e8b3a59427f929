import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkSchema } from "../src/index.ts";
import { schemaNames } from "../src/schema-name.ts";

describe("checkSchema on arbitrary input", () => {
  it.each(schemaNames)(
    "never throws for %s and always returns issues with a pointer, keyword and message",
    (name) => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const check = checkSchema(name, value);
          expect(check.valid).toBe(check.issues.length === 0);
          for (const issue of check.issues) {
            expect(issue.path).toMatch(/^(\/([^~/]|~[01])*)*$/);
            expect(issue.keyword).not.toBe("");
            expect(issue.message).not.toBe("");
          }
        }),
        { numRuns: 300 },
      );
    },
  );

  it("reports a value that is not JSON data instead of throwing", () => {
    expect(checkSchema("campaign", { slug: () => 1 })).toMatchObject({
      valid: false,
      issues: [{ path: "", keyword: "type" }],
    });
  });
});
