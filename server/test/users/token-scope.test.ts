import { describe, expect, it } from "vitest";
import { tokenScope } from "../../src/users/token-scope.ts";

describe("tokenScope", () => {
  it("intersects the request with read and contribute", () => {
    expect(tokenScope(["read"], [])).toEqual({ scopes: ["read"], capabilities: [] });
    expect(tokenScope(["read", "contribute", "admin"], [])).toEqual({
      scopes: ["read", "contribute"],
      capabilities: [],
    });
  });

  it("treats contribute as implying read", () => {
    expect(tokenScope(["contribute"], []).scopes).toEqual(["read", "contribute"]);
  });

  it("adds every capability the user holds when the request names none", () => {
    expect(tokenScope(["read"], ["custom_verifier", "author"]).capabilities).toEqual([
      "author",
      "custom_verifier",
    ]);
  });

  it("narrows capabilities to those named, and never adds one the user lacks", () => {
    expect(tokenScope(["read", "author"], ["author", "custom_verifier"]).capabilities).toEqual(["author"]);
    expect(tokenScope(["read", "custom_verifier"], ["author"]).capabilities).toEqual([]);
    expect(tokenScope(["read", "author", "custom_verifier"], []).capabilities).toEqual([]);
  });
});
