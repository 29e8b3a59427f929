import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { comparePaths } from "../../src/tree/index.ts";

describe("comparePaths", () => {
  it("orders any two well-formed strings as their UTF-8 bytes compare", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(Math.sign(comparePaths(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
    );
  });

  it("puts a supplementary character after U+FFFD, unlike JavaScript's default order", () => {
    expect(["\u{10000}", "\uFFFD"].sort(comparePaths)).toEqual(["\uFFFD", "\u{10000}"]);
  });
});
