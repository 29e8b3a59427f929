import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { illFormedStringAt, jsonMayHoldIllFormedString } from "../../src/lint/ill-formed-string.ts";

/** JSON texts whose strings and keys may hold lone surrogates, NULs, `\u` escapes and backslashes. */
const hostileJsonText = fc
  .jsonValue({
    maxDepth: 3,
    stringUnit: fc.oneof(
      fc.constantFrom("a", "\\", "u", "\u0000", "\ud800", "\udc00", "é", "😀"),
      fc.string({ unit: "binary", maxLength: 1 }),
    ),
  })
  .chain((value) =>
    fc.constantFrom(
      JSON.stringify(value),
      // The same text with non-ASCII written as \u escapes, as other JSON writers do.
      JSON.stringify(value).replace(
        /[^\x20-\x7e]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      ),
    ),
  );

describe("jsonMayHoldIllFormedString", () => {
  it("is true whenever the parsed value holds an ill-formed string or key (property)", () => {
    fc.assert(
      fc.property(hostileJsonText, (text) => {
        if (illFormedStringAt(JSON.parse(text)) !== undefined)
          expect(jsonMayHoldIllFormedString(text)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("is false for a plain text without escapes, true for a \\u escape, a lone surrogate or a NUL", () => {
    expect(jsonMayHoldIllFormedString('{"title":"Café \\n \\"q\\" 😀"}')).toBe(false);
    expect(jsonMayHoldIllFormedString('{"title":"\\u00e9"}')).toBe(true);
    expect(jsonMayHoldIllFormedString('{"title":"\ud800"}')).toBe(true);
    expect(jsonMayHoldIllFormedString('{"title":"\u0000"}')).toBe(true);
  });
});
