import { describe, expect, it } from "vitest";
import { createAjv } from "../src/create-ajv.ts";
import { formatIssues } from "../src/format-issues.ts";
import { checkSchema } from "../src/index.ts";
import { validExample } from "./fixtures.ts";

/** Validates against an ad-hoc schema and formats the errors, to test formatting on its own. */
function issuesFor(schema: object, value: unknown) {
  const validate = createAjv().compile(schema);
  validate(value);
  return formatIssues(validate.errors ?? []);
}

describe("formatIssues", () => {
  it("drops the `if` noise and keeps the error inside the branch", () => {
    const problem = { ...validExample("problem", "minimal"), structure: "BENCHMARK" };
    expect(checkSchema("problem", problem).issues.map((i) => i.keyword)).toEqual(["required"]);
  });

  it("sorts by path segment, with array indexes in numeric order, then by keyword", () => {
    const issues = issuesFor(
      {
        type: "array",
        items: { type: "object", required: ["b", "a"], properties: { a: { type: "string" }, b: true } },
      },
      Array.from({ length: 11 }, () => ({})),
    );
    expect(issues.slice(0, 4).map((i) => i.path)).toEqual(["/0/a", "/0/b", "/1/a", "/1/b"]);
    expect(issues.at(-1)?.path).toBe("/10/b");
  });

  it("escapes a property name in the path as RFC 6901 requires", () => {
    const issues = issuesFor({ type: "object", additionalProperties: false }, { "a/b~c": 1 });
    expect(issues).toEqual([
      { path: "/a~1b~0c", keyword: "additionalProperties", message: 'unknown property "a/b~c"; remove it' },
    ]);
  });

  it("keeps only the errors of the alternative whose type matches", () => {
    const schema = {
      anyOf: [{ type: "null" }, { type: "object", required: ["x"], properties: { x: { type: "integer" } } }],
    };
    expect(issuesFor(schema, { x: "1" })).toEqual([
      { path: "/x", keyword: "type", message: '"x" must be an integer; got a string' },
    ]);
  });

  it("says which types are allowed when no alternative's type matches", () => {
    const schema = { oneOf: [{ type: "null" }, { type: "object" }, { type: "array" }] };
    expect(issuesFor(schema, 3)).toEqual([
      {
        path: "",
        keyword: "type",
        message: "the document must be null or an object or an array; got an integer",
      },
    ]);
  });

  it("deduplicates identical issues", () => {
    const schema = { allOf: [{ type: "string" }, { type: "string" }] };
    expect(issuesFor(schema, 1)).toHaveLength(1);
  });

  it("names the forbidden value kind for const and lists enum values with null", () => {
    expect(issuesFor({ enum: ["a", null] }, "b")[0]?.message).toBe(
      'the document must be one of "a", null; got "b"',
    );
    expect(issuesFor({ const: "none" }, "host")[0]?.message).toBe('the document must be "none"; got "host"');
  });
});
