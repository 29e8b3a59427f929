import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkAnnotations,
  checkConclusion,
  checkPackage,
  checkTitle,
  formatCheckSummary,
} from "../../src/checks/index.ts";
import { memoryTree } from "../../src/tree/index.ts";
import { campaignFiles } from "../client/support/campaign-files.ts";

const linted = (files: Record<string, string>, dir = "pkg") =>
  checkPackage(dir, async () => memoryTree(files));

describe("formatCheckSummary", () => {
  it("lists every problem when they fit, and says nothing is left out", async () => {
    const check = await linted(campaignFiles(3));
    const text = formatCheckSummary(check, await checkAnnotations(check), {
      maxBytes: 65_535,
      fullReport: "REPORT",
    });
    expect(text).toContain("### `pkg`: 3 problems, lint clean");
    expect(text).toContain(`plan_hash \`${check.lint.plan_hash}\``);
    for (const slug of ["p-0", "p-1", "p-2"]) expect(text).toContain(`| \`${slug}\` | planned |`);
    expect(text).not.toContain("Not shown");
    expect(checkConclusion(check)).toBe("success");
  });

  it("stays within any ceiling, shows rows in slug order, and counts what it left out (property)", async () => {
    const check = await linted(campaignFiles(150));
    const annotations = await checkAnnotations(check);
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 20_000 }), (maxBytes) => {
        const text = formatCheckSummary(check, annotations, { maxBytes, fullReport: "see REPORT" });
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxBytes);
        const shown = [...text.matchAll(/^\| `(p-\d+)` \|/gm)].map((m) => m[1]);
        expect(shown).toEqual([...shown].sort());
        if (shown.length < 150)
          expect(text).toContain(`_Not shown: ${150 - shown.length} problems. Full report: see REPORT_`);
      }),
      { numRuns: 60 },
    );
  });

  it("puts lint errors first, at their file and line, and fails the check", async () => {
    const files = campaignFiles(2);
    const path = Object.keys(files).find((p) => p.endsWith("/problem.json"))!;
    files[path] = JSON.stringify({ ...JSON.parse(files[path]!), priority_weight: "x" }, null, 2);
    const check = await linted(files, ".");
    const annotations = await checkAnnotations(check);
    const line = files[path]!.split("\n").findIndex((l) => l.includes("priority_weight")) + 1;
    expect(annotations[0]).toMatchObject({ path, line, level: "failure", title: "schema_violation" });
    expect(checkTitle(check)).toBe("1 lint error");
    expect(checkConclusion(check)).toBe("failure");
    const text = formatCheckSummary(check, annotations, { maxBytes: 65_535, fullReport: "R" });
    expect(text).toContain(`| \`${path}\` | ${line} | schema_violation |`);
  });

  it("fails the check when a checker fails its own fixtures, annotating the checker's file at its traceback line", async () => {
    const check = await linted(campaignFiles(1), "pkg");
    const plan = check.lint.plan!;
    const [implementation] = Object.values(plan.verifier_implementations);
    const failure = {
      stage_key: "check_answer",
      image_ref: implementation!.runtime.image_ref,
      fixture: "right_answer",
      expected: "verified" as const,
      actual: "error" as const,
      passed: false,
      implementation: implementation!.content_hash,
      program: "checker.py",
      detail: "the checker wrote no /output/result.json (the checker exited with code 1)",
      log_tail:
        'Traceback (most recent call last):\n  File "/input/checker/checker.py", line 31, in <module>\n    main()\n  File "/input/checker/checker.py", line 17, in main\nRuntimeError: broken\n',
    };
    const validation = {
      valid: true,
      errors: [],
      notes: [],
      plan_hash: check.lint.plan_hash,
      reconciliation: null,
      conformance: [failure, { ...failure, fixture: "wrong_answer", passed: true, log_tail: "" }],
    };
    const served = {
      ...check,
      service: { ok: true as const, result: { valid: true, validation, shards: [] } },
    };
    expect(checkConclusion(served)).toBe("failure");
    expect(checkTitle(served)).toContain("1 conformance fixture failed");
    const annotations = await checkAnnotations(served);
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatchObject({
      path: "pkg/checker.py",
      line: 17,
      level: "failure",
      title: "conformance_failed",
    });
    expect(annotations[0]!.message).toContain("check_answer/right_answer: expected verified, actual error");
    expect(annotations[0]!.message).toContain("RuntimeError: broken");
    const text = formatCheckSummary(served, annotations, { maxBytes: 65_535, fullReport: "R" });
    expect(text).toContain("| `pkg/checker.py` | 17 | conformance_failed |");
  });

  it("reports a tree that cannot be a package as an error on the offending file", async () => {
    const check = await checkPackage("pkg", async () => {
      throw new (await import("../../src/tree/index.ts")).TreeError("symlink", "a link", "statement.md");
    });
    expect(check.lint.errors).toEqual([
      expect.objectContaining({ file: "statement.md", code: "unknown_file" }),
    ]);
    expect((await checkAnnotations(check))[0]).toMatchObject({ path: "pkg/statement.md", line: 1 });
  });
});
