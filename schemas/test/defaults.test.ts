import { describe, expect, it } from "vitest";
import { type CampaignFile, checkSchema, type ProblemFile, type VerifierContractFile } from "../src/index.ts";
import { validExample } from "./fixtures.ts";

/** Freezes a value and everything in it, so any write during validation throws. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe("defaults", () => {
  it("problem.json without structure gets SOLVE and priority_weight 0.5", () => {
    const check = checkSchema<ProblemFile>("problem", validExample("problem", "minimal"));
    expect(check.value).toEqual({
      slug: "two-sum",
      title: "Two sum",
      summary: "Find two numbers that add up to a target.",
      structure: "SOLVE",
      priority_weight: 0.5,
    });
  });

  it("a skill given as an object defaults to requirement required; a bare id stays a string", () => {
    const check = checkSchema<ProblemFile>("problem", {
      ...validExample("problem", "minimal"),
      skills: ["skv_0123456789", { skill_version_id: "skv_abcdefghij" }],
    });
    expect(check.value?.skills).toEqual([
      "skv_0123456789",
      { skill_version_id: "skv_abcdefghij", requirement: "required" },
    ]);
  });

  it("authored sealing gets submission_closes_at null, release_at null and collaborative entries", () => {
    const check = checkSchema<ProblemFile>("problem", {
      ...validExample("problem", "minimal"),
      sealing: {
        sealed_until: "2027-01-01T00:00:00Z",
        score_release: { mode: "immediate" },
        submission_limit: { max_submissions: 3, window_hours: 24 },
      },
    });
    expect(check.value?.sealing).toEqual({
      sealed_until: "2027-01-01T00:00:00Z",
      submission_closes_at: null,
      score_release: { mode: "immediate", release_at: null },
      submission_limit: { max_submissions: 3, window_hours: 24 },
      entries: "collaborative",
    });
  });

  it("a benchmark gets unit and baseline null", () => {
    const check = checkSchema<ProblemFile>("problem", {
      ...validExample("problem", "minimal"),
      structure: "BENCHMARK",
      benchmark: { metric_name: "time", direction: "minimize" },
    });
    expect(check.value?.benchmark).toEqual({
      metric_name: "time",
      direction: "minimize",
      unit: null,
      baseline: null,
    });
  });

  it("campaign.json gets an empty description_md and status draft", () => {
    const check = checkSchema<CampaignFile>("campaign", validExample("campaign", "minimal"));
    expect(check.value).toMatchObject({ description_md: "", status: "draft" });
  });

  it("a minimal verifier contract gets every top-level and stage default", () => {
    const check = checkSchema<VerifierContractFile>(
      "verifier-contract",
      validExample("verifier-contract", "minimal"),
    );
    expect(check.value).toEqual({
      title: "Essay accepted",
      statement_md: "",
      reference_inputs: [],
      stages: [
        {
          key: "peer_review",
          kind: "review",
          title: "Peer review",
          description_md: "",
          evidence_schema: null,
          review_protocol_id: null,
          rule_owner: "contract",
          acceptance: "Two reviewers accept.",
          external_system: null,
        },
      ],
      submission_requirements: { required_artifacts: [], accepts_text_only: false, answer_format_md: null },
      result_kind: "pass_fail",
      score: null,
      conformance_fixtures: [],
    });
  });

  it("sandbox-only stage fields get no default, because omitting reference_input_slots means all slots", () => {
    const check = checkSchema<VerifierContractFile>(
      "verifier-contract",
      validExample("verifier-contract", "minimal"),
    );
    const stage = check.value!.stages[0]!;
    for (const field of ["implementation", "reference_input_slots", "result_kind", "limits"]) {
      expect(stage).not.toHaveProperty(field);
    }
  });

  it("slots, artifacts and fixtures get their defaults", () => {
    const check = checkSchema<VerifierContractFile>("verifier-contract", {
      ...validExample("verifier-contract", "minimal"),
      reference_inputs: [{ key: "instance", required: true, media_types: ["text/plain"], max_bytes: 10 }],
      submission_requirements: {
        required_artifacts: [{ role: "essay", media_types: ["text/markdown"], max_bytes: 10 }],
      },
      conformance_fixtures: [
        { key: "good", stage_key: "peer_review", inputs: {}, expected_result: "verified" },
      ],
    });
    expect(check.value?.reference_inputs[0]).toMatchObject({ description: "", sealed: false });
    expect(check.value?.submission_requirements).toEqual({
      required_artifacts: [{ role: "essay", description: "", media_types: ["text/markdown"], max_bytes: 10 }],
      accepts_text_only: false,
      answer_format_md: null,
    });
    expect(check.value?.conformance_fixtures[0]).toMatchObject({
      description: "",
      inputs: { reference: {}, artifacts: [] },
    });
  });

  it("records fill their nullable defaults", () => {
    const run = checkSchema<Record<string, unknown>>(
      "verification-run",
      validExample("verification-run", "minimal"),
    );
    expect(run.value).toMatchObject({ score: null, started_at: null, finished_at: null, revocation: null });
    const revision = checkSchema<Record<string, unknown>>(
      "problem-revision",
      validExample("problem-revision", "minimal"),
    );
    expect(revision.value).toMatchObject({ verifier_input_bindings: [], skill_refs: [], sealing: null });
    const implementation = checkSchema<{ yanked_at: null; conformance: Record<string, unknown> }>(
      "verifier-implementation",
      validExample("verifier-implementation", "minimal"),
    );
    expect(implementation.value?.yanked_at).toBeNull();
    expect(implementation.value?.conformance.differential_against_implementation_id).toBeNull();
  });

  it("validation never mutates the input, valid or not", () => {
    const valid = deepFreeze(validExample("verifier-contract", "minimal"));
    const copy = structuredClone(valid);
    expect(checkSchema("verifier-contract", valid).valid).toBe(true);
    expect(valid).toEqual(copy);
    const invalid = deepFreeze({ ...validExample("problem", "minimal"), structure: "BENCHMARK", extra: 1 });
    expect(checkSchema("problem", invalid).valid).toBe(false);
  });

  it("a failed check returns no value", () => {
    const check = checkSchema("campaign", {});
    expect(check).toMatchObject({ valid: false, value: undefined });
  });
});
