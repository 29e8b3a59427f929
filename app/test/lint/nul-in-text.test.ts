import { describe, expect, it } from "vitest";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { memoryTree } from "../../src/tree/memory-tree.ts";

/**
 * A NUL in a package's text cannot be stored by the service (PostgreSQL text refuses U+0000), so
 * `svc lint` refuses it as validation does: one error at the file, with its line, and no cascade.
 */
describe("NUL in a package's text files", () => {
  const problem = JSON.stringify({ slug: "p", title: "P", summary: "S" });

  it("is an error at statement.md naming the line", async () => {
    const report = await lintPackage(
      memoryTree({ "problem.json": problem, "statement.md": "# P\n\nall fine\nthen \u0000 here\n" }),
    );
    expect(report.errors).toEqual([
      {
        file: "statement.md",
        path: "",
        code: "schema_violation",
        message: expect.stringMatching(/NUL character \(byte 0\) on line 4/),
      },
    ]);
    expect(report.plan).toBeNull();
  });

  it("is one error in a JSON file holding the byte, and invalid_json for a \\u0000 escape", async () => {
    const raw = await lintPackage(
      memoryTree({ "problem.json": `{"slug":"p","title":"P\u0000","summary":"S"}`, "statement.md": "# P\n" }),
    );
    expect(raw.errors.filter((e) => e.file === "problem.json")).toEqual([
      expect.objectContaining({ code: "schema_violation", message: expect.stringContaining("NUL") }),
    ]);
    const escaped = await lintPackage(
      memoryTree({
        "problem.json": '{"slug":"p","title":"P\\u0000","summary":"S"}',
        "statement.md": "# P\n",
      }),
    );
    expect(escaped.errors).toEqual([
      expect.objectContaining({
        file: "problem.json",
        code: "invalid_json",
        message: expect.stringContaining("NUL"),
      }),
    ]);
  });
});
