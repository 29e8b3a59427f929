import { describe, expect, it } from "vitest";
import { checkSchema } from "../src/index.ts";
import { exampleSchemas, validExample } from "./fixtures.ts";

describe("valid examples", () => {
  it.each(exampleSchemas)("a minimal %s passes", (name) => {
    expect(checkSchema(name, validExample(name, "minimal")).issues).toEqual([]);
  });

  it.each(exampleSchemas)("a full %s passes and comes back unchanged (nothing left to default)", (name) => {
    const example = validExample(name, "full");
    const check = checkSchema(name, example);
    expect(check.issues).toEqual([]);
    if (name !== "verifier-contract") expect(check.value).toEqual(example);
  });
});
