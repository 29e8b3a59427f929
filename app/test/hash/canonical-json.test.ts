import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/hash/sha256.ts";

/** What canonicalize writes for a value, or that it refuses it. */
function reference(value: unknown): { text: string } | { refused: true } {
  try {
    const text = canonicalize(value);
    return text === undefined ? { refused: true } : { text };
  } catch {
    return { refused: true };
  }
}

function outcome(value: unknown): { text: string } | { refused: true } {
  try {
    return { text: canonicalJson(value) };
  } catch {
    return { refused: true };
  }
}

/** Keys JavaScript orders its own way ("10" before "9"), special names, non-ASCII and lone surrogates. */
const key = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom(
    "0",
    "1",
    "9",
    "10",
    "01",
    "-1",
    "4294967295",
    "__proto__",
    "toJSON",
    "é",
    "😀",
    "\ud800",
    "a\u0000",
  ),
);

/** Plain JSON data and the values around it: undefined, -0, NaN, Infinity, dates, boxed values, functions. */
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(
      null,
      true,
      false,
      undefined,
      0,
      -0,
      1.5,
      1e21,
      5e-324,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ),
    fc.double(),
    fc.integer(),
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.constantFrom("\ud800", "a\udc00b", "\u2028", "\u007f", '"\\'),
    fc.constantFrom(new Date(0), new Number(3), new String("s"), () => 1, Symbol("s"), { toJSON: () => "j" }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 5 }),
    fc.dictionary(key, tie("value"), { maxKeys: 3, noNullPrototype: false }),
  ),
}));

describe("canonicalJson", () => {
  it("writes what canonicalize writes, and refuses what it refuses (property)", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(outcome(v)).toEqual(reference(v));
      }),
      { numRuns: 5000 },
    );
  });

  it("orders keys by UTF-16 code units, array-index-like keys too", () => {
    expect(canonicalJson({ b: 1, a: [undefined, 2], 10: "x", 9: "y", é: null, z: undefined })).toBe(
      '{"10":"x","9":"y","a":[null,2],"b":1,"é":null}',
    );
  });

  it("refuses a cycle and a lone surrogate as canonicalize does", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/Circular/);
    expect(() => canonicalJson({ s: "\ud800" })).toThrow(/surrogate/);
  });
});
