import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acknowledgementFingerprint } from "../../src/sealing/acknowledgement-fingerprint.ts";
import { evaluationIdOf } from "../../src/sealing/evaluation-id.ts";
import { protectedStageKeys } from "../../src/sealing/protected-stage-keys.ts";
import { isLabelReleased, isScoreReleased, selectionFreezesAt } from "../../src/sealing/release-times.ts";
import { NOTHING_WITHHELD, runWithholding, withholdRun } from "../../src/sealing/run-withholding.ts";
import { mergeReleaseState, type SealingPolicy } from "../../src/sealing/sealing-policy.ts";
import { submissionAllowance } from "../../src/sealing/submission-allowance.ts";

const policy = (overrides: Partial<SealingPolicy> = {}): SealingPolicy => ({
  sealed_until: "2030-03-01T00:00:00.000Z",
  submission_limit: { max_submissions: 2, window_hours: 24 },
  unsealed_at: null,
  submission_closes_at: "2030-02-01T00:00:00.000Z",
  score_release: { mode: "final_only", release_at: "2030-02-15T00:00:00.000Z" },
  release_event: null,
  entries: "collaborative",
  evaluation_id: `sev_${"0".repeat(32)}`,
  ...overrides,
});

const run = (stages: Array<{ key: string; result: string; evidence: string }>) => ({
  result: "refuted" as string | null,
  score: 3 as number | null,
  evidence_md: stages.map((s) => s.evidence).join("\n"),
  stage_results: stages.map((s) => ({
    stage_key: s.key,
    result: s.result as string | null,
    evidence_md: s.evidence,
    log: { content_hash: "sha256:x" } as unknown,
    mechanism: { sandbox: { exit_code: 1 as number | null, evidence_hash: "sha256:y" as string | null } },
  })),
});

describe("protectedStageKeys", () => {
  const slots = [{ key: "secret", sealed: true }, { key: "open" }];
  it("protects sandbox stages that select a sealed slot, or omit the selection, and nothing else", () => {
    const stages = [
      { key: "reads_secret", kind: "sandbox", reference_input_slots: ["open", "secret"] },
      { key: "reads_open", kind: "sandbox", reference_input_slots: ["open"] },
      { key: "mounts_nothing", kind: "sandbox", reference_input_slots: [] },
      { key: "mounts_all", kind: "sandbox" },
      { key: "judge", kind: "review", reference_input_slots: null },
    ];
    expect([...protectedStageKeys({ reference_inputs: slots, stages })]).toEqual([
      "reads_secret",
      "mounts_all",
    ]);
  });

  it("protects nothing when no slot is sealed", () => {
    const stages = [{ key: "all", kind: "sandbox" }];
    expect(protectedStageKeys({ reference_inputs: [{ key: "open" }], stages }).size).toBe(0);
  });
});

describe("evaluationIdOf", () => {
  it("is sev_ and 32 hex, independent of binding and owner order, and changes with data or owners", () => {
    const a = { key: "a", content_hash: `sha256:${"1".repeat(64)}` };
    const b = { key: "b", content_hash: `sha256:${"2".repeat(64)}` };
    const id = evaluationIdOf([a, b], ["usr_one0000000"]);
    expect(id).toMatch(/^sev_[0-9a-f]{32}$/);
    expect(evaluationIdOf([b, a], ["usr_one0000000", "usr_one0000000"])).toBe(id);
    expect(evaluationIdOf([a], ["usr_one0000000"])).not.toBe(id);
    expect(evaluationIdOf([a, b], ["usr_two0000000"])).not.toBe(id);
  });
});

describe("release times", () => {
  it("releases labels at sealed_until or an early unseal, and final_only scores at release_at or with the labels", () => {
    const p = policy();
    expect(isLabelReleased(p, new Date("2030-02-28T23:59:59.999Z"))).toBe(false);
    expect(isLabelReleased(p, new Date("2030-03-01T00:00:00.000Z"))).toBe(true);
    expect(isScoreReleased(p, new Date("2030-02-14T23:59:59.999Z"))).toBe(false);
    expect(isScoreReleased(p, new Date("2030-02-15T00:00:00.000Z"))).toBe(true);
    const early = policy({ unsealed_at: "2030-01-10T00:00:00.000Z" });
    expect(isScoreReleased(early, new Date("2030-01-10T00:00:00.000Z"))).toBe(true);
    expect(selectionFreezesAt(early)).toBe("2030-01-10T00:00:00.000Z");
    expect(selectionFreezesAt(p)).toBe("2030-02-01T00:00:00.000Z");
    expect(
      isScoreReleased(policy({ score_release: { mode: "immediate", release_at: null } }), new Date(0)),
    ).toBe(true);
  });

  it("merges an evaluation's release state over the stored policy", () => {
    const stored = { ...policy(), evaluation_id: null } as unknown as Record<string, unknown>;
    const event = { unsealed_at: "2030-01-02T00:00:00.000Z", user_id: "usr_one0000000", reason_md: "why" };
    const merged = mergeReleaseState(stored, `sev_${"a".repeat(32)}`, {
      unsealed_at: event.unsealed_at,
      release_event: event,
    });
    expect(merged).toMatchObject({ unsealed_at: event.unsealed_at, release_event: event });
    expect(merged.evaluation_id).toBe(`sev_${"a".repeat(32)}`);
  });
});

describe("submissionAllowance", () => {
  it("reports the next reset as the oldest counted submission plus the window", () => {
    const allowance = submissionAllowance(policy(), "sev_x", {
      used: 2,
      oldest: new Date("2030-01-01T05:00:00Z"),
    });
    expect(allowance).toMatchObject({ used: 2, remaining: 0, next_reset_at: "2030-01-02T05:00:00.000Z" });
    expect(submissionAllowance(policy(), "sev_x", { used: 0, oldest: null }).next_reset_at).toBeNull();
  });
});

describe("acknowledgementFingerprint", () => {
  it("ignores revision order and changes with the affected set or the release state", () => {
    const state = { unsealed_at: null, release_event: null };
    const base = acknowledgementFingerprint("sev_x", ["prv_b", "prv_a"], state);
    expect(acknowledgementFingerprint("sev_x", ["prv_a", "prv_b"], state)).toBe(base);
    expect(acknowledgementFingerprint("sev_x", ["prv_a"], state)).not.toBe(base);
    expect(
      acknowledgementFingerprint("sev_x", ["prv_a", "prv_b"], {
        unsealed_at: "2030-01-01T00:00:00Z",
        release_event: null,
      }),
    ).not.toBe(base);
  });
});

describe("withholdRun", () => {
  const protectedStages = new Set(["check"]);
  const stageArb = fc.record({
    key: fc.constantFrom("check", "lint", "judge"),
    result: fc.constantFrom("verified", "refuted", "inconclusive"),
    evidence: fc.string(),
  });
  const nowArb = fc.date({
    min: new Date("2029-12-01T00:00:00Z"),
    max: new Date("2030-04-01T00:00:00Z"),
    noInvalidDate: true,
  });

  it("never shows a withheld outcome or protected evidence, and leaves everything else as stored", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(stageArb, { selector: (s) => s.key, maxLength: 3 }),
        nowArb,
        (stages, now) => {
          const stored = run(stages);
          const withholding = runWithholding(policy(), protectedStages, false, now);
          const shown = withholdRun(stored, withholding);
          if (withholding.outcome) {
            expect(shown.result).toBeNull();
            expect(shown.score).toBeNull();
          } else {
            expect([shown.result, shown.score]).toEqual([stored.result, stored.score]);
          }
          for (const [i, stage] of shown.stage_results.entries()) {
            const original = stored.stage_results[i]!;
            if (withholding.protectedEvidence && stage.stage_key === "check") {
              expect(stage.evidence_md).toMatch(/withheld/);
              expect(stage.log).toBeNull();
              expect(stage.mechanism.sandbox).toEqual({ exit_code: null, evidence_hash: null });
              if (stored.evidence_md !== "") expect(shown.evidence_md).toMatch(/^_.*withheld/);
            } else if (stage.stage_key !== "check") {
              expect(stage).toEqual(original);
            }
          }
          // Idempotent, and the stored record is untouched.
          expect(withholdRun(shown, withholding)).toEqual(shown);
          expect(stored).toEqual(run(stages));
        },
      ),
    );
  });

  it("withholds nothing from managers or on unsealed work", () => {
    expect(runWithholding(policy(), protectedStages, true, new Date("2030-01-01T00:00:00Z"))).toBe(
      NOTHING_WITHHELD,
    );
    expect(runWithholding(null, protectedStages, false, new Date("2030-01-01T00:00:00Z"))).toBe(
      NOTHING_WITHHELD,
    );
  });
});
