import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StageResult } from "../../src/sandbox/checker-job.ts";
import {
  type FinishedStage,
  runContinues,
  runVerdict,
  truncateEvidence,
} from "../../src/verification/run-verdict.ts";

const stage = (stage_key: string, result: StageResult, score: number | null = null): FinishedStage => ({
  stage_key,
  kind: "sandbox",
  result,
  score,
  evidence_md: `${stage_key} said ${result}`,
});

const result = fc.constantFrom<StageResult>("verified", "refuted", "inconclusive", "error");
/** Stages as a run finishes them: every stage verified except possibly the last. */
const finishedRun = fc
  .tuple(
    fc.integer({ min: 0, max: 6 }),
    result,
    fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
  )
  .map(([verified, last, score]) => [
    ...Array.from({ length: verified }, (_, i) => stage(`s${i}`, "verified", i === 0 ? score : null)),
    stage("last", last, last === "verified" ? score : null),
  ]);

describe("runVerdict", () => {
  it("is verified when every stage of the contract verified, with the last score reported", () => {
    const verdict = runVerdict([stage("a", "verified", 1), stage("b", "verified", 2)], {
      stage_count: 2,
      result_kind: "score",
    });
    expect(verdict).toMatchObject({ result: "verified", score: 2 });
    expect(verdict.evidence_md).toContain("- `a` (sandbox): verified");
  });

  it("is the first non-pass result, without a score", () => {
    const verdict = runVerdict([stage("a", "verified", 1), stage("b", "refuted")], {
      stage_count: 3,
      result_kind: "score",
    });
    expect(verdict).toMatchObject({ result: "refuted", score: null });
  });

  it("is error when fewer stages finished than the contract has and none failed", () => {
    expect(runVerdict([stage("a", "verified")], { stage_count: 2, result_kind: "pass_fail" }).result).toBe(
      "error",
    );
  });

  it("property: verified exactly when all stage_count stages verified; else the first non-pass result", () => {
    fc.assert(
      fc.property(
        finishedRun,
        fc.constantFrom<"pass_fail" | "score">("pass_fail", "score"),
        (stages, kind) => {
          const verdict = runVerdict(stages, { stage_count: stages.length, result_kind: kind });
          const first = stages.find((s) => s.result !== "verified");
          expect(verdict.result).toBe(first?.result ?? "verified");
          if (verdict.result !== "verified" || kind === "pass_fail") expect(verdict.score).toBeNull();
          expect(verdict.evidence_md.length).toBeLessThanOrEqual(20_000);
        },
      ),
    );
  });

  it("property: a run continues exactly while every finished stage verified", () => {
    fc.assert(
      fc.property(fc.array(result, { maxLength: 8 }), (results) => {
        const stages = results.map((r, i) => stage(`s${i}`, r));
        expect(runContinues(stages)).toBe(results.every((r) => r === "verified"));
      }),
    );
  });

  it("cuts evidence to the ceiling and says so", () => {
    const cut = truncateEvidence("x".repeat(30_000));
    expect(cut.length).toBe(20_000);
    expect(cut.endsWith("[evidence truncated]")).toBe(true);
  });
});
