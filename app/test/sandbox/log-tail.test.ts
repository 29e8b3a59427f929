import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LOG_TAIL_BYTES, logTail } from "../../src/sandbox/log-tail.ts";

describe("logTail", () => {
  it("keeps the end of a checker's output, where its traceback is", () => {
    const log = Buffer.from(
      `${"x".repeat(10_000)}\nTraceback (most recent call last):\nRuntimeError: broken\n`,
    );
    const tail = logTail({ bytes: log });
    expect(tail.endsWith("RuntimeError: broken\n")).toBe(true);
    expect(Buffer.byteLength(tail)).toBe(LOG_TAIL_BYTES);
    expect(logTail({ bytes: new Uint8Array(0) })).toBe("");
    expect(logTail(null)).toBe("");
  });

  it("is at most 4 KiB of the log's last bytes, cut at a character, and always storable text (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "grapheme", maxLength: 3000 }).map((s) => Buffer.from(s)),
          fc.uint8Array({ maxLength: 6000 }),
        ),
        (bytes) => {
          const tail = logTail({ bytes });
          expect(tail.includes("\u0000")).toBe(false);
          expect(tail.isWellFormed()).toBe(true);
          const text = Buffer.from(bytes).toString("utf8");
          // Valid UTF-8 comes back as it was: its last characters, within the bound.
          if (Buffer.from(text).equals(Buffer.from(bytes)) && !text.includes("\u0000")) {
            expect(text.endsWith(tail)).toBe(true);
            expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(LOG_TAIL_BYTES);
            if (bytes.length <= LOG_TAIL_BYTES) expect(tail).toBe(text);
          }
        },
      ),
    );
  });
});
