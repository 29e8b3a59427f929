import { pointer } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pointerToLine } from "../../src/tree/index.ts";

const SENTINEL = "\u0000sentinel\u0000";

/** Every pointer into a JSON value, with the value rebuilt with the sentinel at that place. */
function pointers(
  value: unknown,
  at: Array<string | number> = [],
): Array<{ path: Array<string | number>; marked: unknown }> {
  const out: Array<{ path: Array<string | number>; marked: unknown }> = [];
  const replace = (root: unknown, path: Array<string | number>): unknown => {
    if (path.length === 0) return SENTINEL;
    const [head, ...rest] = path;
    if (Array.isArray(root)) return root.map((v, i) => (i === head ? replace(v, rest) : v));
    const copy = { ...(root as Record<string, unknown>) };
    // defineProperty, so a "__proto__" key stays a key.
    Object.defineProperty(copy, head as string, {
      value: replace(copy[head as string], rest),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return copy;
  };
  const walk = (node: unknown, path: Array<string | number>) => {
    if (path.length > 0) out.push({ path, marked: replace(value, path) });
    if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) walk(v, [...path, i]);
    } else if (node && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
    }
  };
  walk(value, at);
  return out;
}

const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;

describe("pointerToLine", () => {
  const text = `{
  "slug": "p",
  "stages": [
    { "key": "a" },
    {
      "key": "b",
      "a/b": 1,
      "m~n": 2
    }
  ]
}`;

  it("finds a member's key line and an item's line", () => {
    expect(pointerToLine(text, "/slug")).toBe(2);
    expect(pointerToLine(text, "/stages")).toBe(3);
    expect(pointerToLine(text, "/stages/0")).toBe(4);
    expect(pointerToLine(text, "/stages/0/key")).toBe(4);
    expect(pointerToLine(text, "/stages/1/key")).toBe(6);
    expect(pointerToLine(text, pointer("stages", 1, "a/b"))).toBe(7);
    expect(pointerToLine(text, pointer("stages", 1, "m~n"))).toBe(8);
  });

  it("falls back to the deepest part that exists, and to line 1 for the whole file or non-JSON", () => {
    expect(pointerToLine(text, "/stages/1/missing")).toBe(5);
    expect(pointerToLine(text, "/stages/7")).toBe(3);
    expect(pointerToLine(text, "/nope/deeper")).toBe(1);
    expect(pointerToLine(text, "")).toBe(1);
    expect(pointerToLine("# Title\n\nText", "/a")).toBe(1);
    expect(pointerToLine('{\n  "a": {\n    "b": [1, 2', "/a/b/1")).toBe(3);
  });

  it("takes the last of duplicate keys, as JSON.parse does", () => {
    expect(pointerToLine('{\n"a": 1,\n"a": 2\n}', "/a")).toBe(3);
  });

  it("lands on the line the value starts at, for any JSON and any pointer into it (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(0, 1, 2, "\t"), (value, indent) => {
        for (const { path, marked } of pointers(value)) {
          const original = JSON.stringify(value, null, indent);
          const withSentinel = JSON.stringify(marked, null, indent);
          expect(pointerToLine(original, pointer(...path))).toBe(
            lineOf(withSentinel, JSON.stringify(SENTINEL)),
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never throws and stays within the text for arbitrary input (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("{", "}", "[", "]", '"', ":", ",", "\\", "\n", "a", "1", " ") }),
        fc.string(),
        (t, p) => {
          const line = pointerToLine(t, `/${p}`);
          expect(line).toBeGreaterThanOrEqual(1);
          expect(line).toBeLessThanOrEqual(t.split("\n").length);
        },
      ),
    );
  });
});
