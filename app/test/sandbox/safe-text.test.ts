import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  nameToBytes,
  safeName,
  safeNameFromString,
  safeText,
  surrogateEscaped,
} from "../../src/sandbox/safe-text.ts";

/** Checker output is data: whatever a checker writes, what is stored is well-formed text without NUL. */
describe("safe text", () => {
  const storable = (text: string) => text.isWellFormed() && !text.includes("\u0000");

  it("makes any string storable, and leaves ordinary text as it is (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(storable(safeText(text))).toBe(true);
        expect(storable(safeNameFromString(text))).toBe(true);
        if (storable(text)) expect(safeText(text)).toBe(text);
        if (storable(text) && !text.includes("\\")) expect(safeNameFromString(text)).toBe(text);
      }),
    );
  });

  it("escapes names from raw bytes reversibly, and two byte strings never share a name (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (a, b) => {
        expect(storable(safeName(a))).toBe(true);
        expect(nameToBytes(safeName(a)).equals(Buffer.from(a))).toBe(true);
        if (!Buffer.from(a).equals(Buffer.from(b))) expect(safeName(a)).not.toBe(safeName(b));
      }),
    );
  });

  it("reads a name from the run's disk as bytes and stores it as the same name safeName gives (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const stored = safeNameFromString(surrogateEscaped(bytes));
        expect(stored).toBe(safeName(bytes));
        expect(nameToBytes(stored).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it("writes Python's surrogate-escaped bytes back as \\xHH, NUL as \\x00, a backslash as \\\\", () => {
    expect(safeNameFromString("bad-\udcff-name")).toBe("bad-\\xFF-name");
    expect(safeNameFromString("a\u0000b\\c")).toBe("a\\x00b\\\\c");
    expect(safeNameFromString("lone-\ud800")).toBe("lone-\\uD800");
    expect(safeText("a\u0000b\\c")).toBe("a\\x00b\\c");
  });
});
