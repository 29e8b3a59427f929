import { checkPackage, memoryTree, scaffoldPackage } from "@svc/app";
import { describe, expect, it } from "vitest";
import { checkRunResult } from "../src/check-commit.ts";
import type { CommitTarget } from "../src/commit-target.ts";

const target: CommitTarget = {
  owner: "acme",
  repo: "problems",
  cloneUrl: "https://github.com/acme/problems.git",
  htmlUrl: "https://github.com/acme/problems",
  ref: "refs/heads/main",
  sha: "a".repeat(40),
  onDefaultBranch: false,
};

describe("a package's check run", () => {
  it("concludes failure with an annotation at the checker's file when the checker fails its own fixtures", async () => {
    const linted = await checkPackage("pkg", async () =>
      memoryTree(scaffoldPackage({ slug: "p", campaign: false })),
    );
    const [implementation] = Object.values(linted.lint.plan!.verifier_implementations);
    const failed = {
      stage_key: "check_answer",
      image_ref: "svc-runtime/python:1",
      fixture: "right_answer",
      expected: "verified" as const,
      actual: "inconclusive" as const,
      passed: false,
      implementation: implementation!.content_hash,
      program: "checker.py",
      detail: "the checker wrote no /output/result.json (the checker exited with code 1)",
      log_tail:
        'Traceback (most recent call last):\n  File "/input/checker/checker.py", line 9, in <module>\nRuntimeError: broken\n',
    };
    const validation = {
      valid: true,
      errors: [],
      notes: [],
      plan_hash: linted.lint.plan_hash,
      reconciliation: null,
      conformance: [failed],
    };
    const check = {
      ...linted,
      service: { ok: true as const, result: { valid: true, validation, shards: [] } },
    };

    const result = await checkRunResult(target, check);
    expect(result.conclusion).toBe("failure");
    expect(result.output.title).toContain("1 conformance fixture failed");
    expect(result.output.annotations).toEqual([
      expect.objectContaining({
        path: "pkg/checker.py",
        start_line: 9,
        end_line: 9,
        annotation_level: "failure",
        title: "conformance_failed",
      }),
    ]);
    expect(result.output.annotations[0]!.message).toContain("RuntimeError: broken");

    const passing = {
      ...validation,
      conformance: [{ ...failed, passed: true, actual: "verified" as const }],
    };
    const fine = {
      ...linted,
      service: { ok: true as const, result: { valid: true, validation: passing, shards: [] } },
    };
    expect((await checkRunResult(target, fine)).conclusion).toBe("success");
  });
});
