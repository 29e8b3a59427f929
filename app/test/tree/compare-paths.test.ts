import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortPaths } from "../../src/tree/compare-paths.ts";
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

describe("sortPaths", () => {
  const byUtf8 = (paths: string[]) =>
    [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  it("sorts any list of well-formed paths as their UTF-8 bytes compare, ASCII only or not", () => {
    const unit = fc.oneof(
      fc.constantFrom("a", "b", "/", ".", "-", "\uFFFD", "\u{10000}", "é"),
      fc.string({ unit: "grapheme", maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 6 }), { maxLength: 12 }), (paths) => {
        expect(sortPaths([...paths])).toEqual(byUtf8(paths));
      }),
    );
  });

  it("sorts in place and returns the list", () => {
    const paths = ["b/x", "a.txt", "a/b"];
    expect(sortPaths(paths)).toBe(paths);
    expect(paths).toEqual(["a.txt", "a/b", "b/x"]);
  });
});
