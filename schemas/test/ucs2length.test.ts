import ajvRuntime from "ajv/dist/runtime/ucs2length.js";
import fc from "fast-check";
import { expect, it } from "vitest";
import ucs2length from "../src/ucs2length.ts";

// ajv's runtime module is CommonJS with `default`: Node gives the exports object, vite the function.
const runtime = ajvRuntime as unknown as ((text: string) => number) | { default: (text: string) => number };
const ajvUcs2length = typeof runtime === "function" ? runtime : runtime.default;

/** Any UTF-16 string: pairs, lone high and low surrogates, surrogates at either end. */
const utf16 = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd7fe, max: 0xe001 })), {
    maxLength: 40,
  })
  .map((units) => String.fromCharCode(...units));

it("counts code points exactly as ajv's runtime ucs2length does", () => {
  fc.assert(
    fc.property(fc.oneof(utf16, fc.string({ unit: "grapheme" }), fc.string()), (text) => {
      expect(ucs2length(text)).toBe(ajvUcs2length(text));
    }),
    { numRuns: 5000 },
  );
  for (const text of [
    "",
    "a",
    "\u{1F600}",
    "\uD83D",
    "\uDE00",
    "x\uD83D\uDE00y",
    "\uD83D\uD83D\uDE00",
    "é".repeat(9000),
  ]) {
    expect(ucs2length(text), JSON.stringify(text)).toBe(ajvUcs2length(text));
  }
});
