import { Ceilings, checkSchema } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { memoryTree } from "../../src/tree/memory-tree.ts";

/**
 * The ceilings of schemas/src/ceilings.ts hold exactly at their value, for any content: a value
 * one unit over is refused naming the file, the field and the ceiling; anything up to it passes.
 */
describe("ceilings", () => {
  const problem = JSON.stringify({ slug: "p", title: "P", summary: "S" });
  const ceiling = Ceilings.statement_bytes;

  it("statement.md: any statement over 256 KiB is refused, any non-blank one up to it is not", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Without NUL: a text file holding one is refused by its own rule (lint-context.ts text()).
        fc.string({ unit: "binary", minLength: 1, maxLength: 64 }).filter((text) => !text.includes("\u0000")),
        fc.integer({ min: -2048, max: 2048 }),
        async (text, offset) => {
          const head = Buffer.from(`# S ${text}\n`);
          const size = Math.max(head.byteLength, ceiling + offset);
          const statement = Buffer.concat([head, Buffer.alloc(size - head.byteLength, 0x61)]);
          const report = await lintPackage(
            memoryTree({ "problem.json": problem, "statement.md": statement }),
          );
          const refusals = report.errors.filter((error) =>
            error.message.includes("the ceiling for statement_md"),
          );
          if (size > ceiling) {
            expect(refusals).toEqual([
              {
                file: "statement.md",
                path: "",
                code: "schema_violation",
                message: expect.stringContaining(
                  `statement.md is ${size} bytes; the ceiling for statement_md is ${ceiling} bytes`,
                ),
              },
            ]);
            expect(report.plan).toBeNull();
          } else {
            expect(refusals).toEqual([]);
            expect(report.plan_hash).not.toBeNull();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a Markdown field: any description_md over its ceiling in characters is refused at its pointer", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 32 }),
        fc.integer({ min: -64, max: 64 }),
        (text, offset) => {
          const prefix = [...text];
          const length = Math.max(prefix.length, Ceilings.markdown_chars + offset);
          const value = prefix.join("") + "x".repeat(length - prefix.length);
          const check = checkSchema("campaign", {
            slug: "c",
            title: "C",
            summary: "S",
            description_md: value,
          });
          if (length > Ceilings.markdown_chars) {
            expect(check.valid).toBe(false);
            if (!check.valid) {
              expect(check.issues).toEqual([
                expect.objectContaining({
                  path: "/description_md",
                  message: expect.stringContaining(`at most ${Ceilings.markdown_chars} characters`),
                }),
              ]);
            }
          } else {
            expect(check.valid).toBe(true);
          }
        },
      ),
    );
  });
});
