import { describe, expect, it } from "vitest";
import { checkSchema } from "../src/index.ts";
import { issuesOf, onlyIssue, validExample } from "./fixtures.ts";

const minimal = validExample("verifier-contract", "minimal");
const stage = { key: "check", kind: "sandbox", title: "Check", acceptance: "It holds." };
const withStage = (extra: Record<string, unknown>) => ({ ...minimal, stages: [{ ...stage, ...extra }] });

describe("verifier-contract.json schema", () => {
  it("requires title, stages and result_kind", () => {
    expect(issuesOf("verifier-contract", {})).toEqual([
      ["/result_kind", "required"],
      ["/stages", "required"],
      ["/title", "required"],
    ]);
  });

  it("refuses a multi-line title and an unknown top-level key", () => {
    expect(issuesOf("verifier-contract", { ...minimal, title: "a\nb", version: 2 })).toEqual([
      ["/title", "pattern"],
      ["/version", "additionalProperties"],
    ]);
  });

  it("needs 1 to 10 stages", () => {
    expect(onlyIssue("verifier-contract", { ...minimal, stages: [] }).message).toBe(
      '"stages" must not be empty',
    );
    const eleven = Array.from({ length: 11 }, (_, i) => ({ ...stage, key: `s${i}` }));
    expect(issuesOf("verifier-contract", { ...minimal, stages: eleven })).toEqual([["/stages", "maxItems"]]);
  });

  it("lists the allowed result kinds, stage kinds and rule owners", () => {
    expect(onlyIssue("verifier-contract", { ...minimal, result_kind: "points" }).message).toBe(
      '"result_kind" must be one of "pass_fail", "score"; got "points"',
    );
    expect(issuesOf("verifier-contract", withStage({ kind: "human", rule_owner: "me" }))).toEqual([
      ["/stages/0/kind", "enum"],
      ["/stages/0/rule_owner", "enum"],
    ]);
  });

  it("requires key, kind, title and acceptance on a stage", () => {
    expect(issuesOf("verifier-contract", { ...minimal, stages: [{}] })).toEqual([
      ["/stages/0/acceptance", "required"],
      ["/stages/0/key", "required"],
      ["/stages/0/kind", "required"],
      ["/stages/0/title", "required"],
    ]);
  });

  it("refuses a stage key outside the key pattern or over 40 characters", () => {
    expect(issuesOf("verifier-contract", withStage({ key: "Check-1" }))).toEqual([
      ["/stages/0/key", "pattern"],
    ]);
    expect(issuesOf("verifier-contract", withStage({ key: "a".repeat(41) }))).toEqual([
      ["/stages/0/key", "maxLength"],
    ]);
  });

  it("bounds acceptance to 1..20000 characters", () => {
    expect(issuesOf("verifier-contract", withStage({ acceptance: "" }))).toEqual([
      ["/stages/0/acceptance", "minLength"],
    ]);
    expect(issuesOf("verifier-contract", withStage({ acceptance: "x".repeat(20001) }))).toEqual([
      ["/stages/0/acceptance", "maxLength"],
    ]);
  });

  it("takes ./review-protocol.json or an rpt_ id as review_protocol_id, nothing else", () => {
    for (const id of ["./review-protocol.json", "rpt_0123456789", null]) {
      expect(checkSchema("verifier-contract", withStage({ review_protocol_id: id })).valid).toBe(true);
    }
    expect(issuesOf("verifier-contract", withStage({ review_protocol_id: "review-protocol.json" }))).toEqual([
      ["/stages/0/review_protocol_id", "pattern"],
    ]);
  });

  it("accepts kind-dependent fields on any kind: lint checks those", () => {
    const review = { ...stage, kind: "review", implementation: "./checker.py", external_system: "Acme" };
    expect(checkSchema("verifier-contract", { ...minimal, stages: [review] }).valid).toBe(true);
  });

  it("accepts a tag-pinned image at schema level: lint refuses tags", () => {
    expect(
      checkSchema("verifier-contract", withStage({ implementation: "ghcr.io/acme/checker:latest" })).valid,
    ).toBe(true);
  });

  it("checks sandbox limits, slots and result_kind", () => {
    const extra = {
      implementation: "",
      reference_input_slots: ["instance", "instance", "Bad"],
      result_kind: "points",
      limits: { memory_mb: 32, vcpu: 17, disk_mb: 70000, timeout_seconds: 0, network: "none" },
    };
    expect(issuesOf("verifier-contract", withStage(extra))).toEqual([
      ["/stages/0/implementation", "minLength"],
      ["/stages/0/limits/disk_mb", "maximum"],
      ["/stages/0/limits/memory_mb", "minimum"],
      ["/stages/0/limits/network", "additionalProperties"],
      ["/stages/0/limits/timeout_seconds", "minimum"],
      ["/stages/0/limits/vcpu", "maximum"],
      ["/stages/0/reference_input_slots", "uniqueItems"],
      ["/stages/0/reference_input_slots/2", "pattern"],
      ["/stages/0/result_kind", "enum"],
    ]);
  });

  it("checks reference input slots", () => {
    const slot = { key: "instance", required: "yes", media_types: [], max_bytes: 0 };
    expect(issuesOf("verifier-contract", { ...minimal, reference_inputs: [slot] })).toEqual([
      ["/reference_inputs/0/max_bytes", "minimum"],
      ["/reference_inputs/0/media_types", "minItems"],
      ["/reference_inputs/0/required", "type"],
    ]);
    expect(issuesOf("verifier-contract", { ...minimal, reference_inputs: [{ key: "instance" }] })).toEqual([
      ["/reference_inputs/0/max_bytes", "required"],
      ["/reference_inputs/0/media_types", "required"],
      ["/reference_inputs/0/required", "required"],
    ]);
  });

  it("checks required artifacts", () => {
    const artifact = { role: "the-essay", media_types: ["x".repeat(121)], max_bytes: 1.5 };
    expect(
      issuesOf("verifier-contract", {
        ...minimal,
        submission_requirements: { required_artifacts: [artifact] },
      }),
    ).toEqual([
      ["/submission_requirements/required_artifacts/0/max_bytes", "type"],
      ["/submission_requirements/required_artifacts/0/media_types/0", "maxLength"],
      ["/submission_requirements/required_artifacts/0/role", "pattern"],
    ]);
  });

  it("checks the score block", () => {
    expect(
      issuesOf("verifier-contract", {
        ...minimal,
        result_kind: "score",
        score: { unit: "", direction: "up" },
      }),
    ).toEqual([
      ["/score/description", "required"],
      ["/score/direction", "enum"],
      ["/score/unit", "minLength"],
    ]);
  });

  it("accepts fixtures without content_hash and size_bytes, which lint --fix writes", () => {
    const fixture = {
      key: "good",
      stage_key: "check",
      inputs: {
        reference: { instance: { filename: "a.cnf" } },
        artifacts: [{ role: "assignment", filename: "a.txt" }],
      },
      expected_result: "verified",
    };
    expect(checkSchema("verifier-contract", { ...minimal, conformance_fixtures: [fixture] }).valid).toBe(
      true,
    );
  });

  it("checks fixtures: key length, slot keys, hashes, sizes and expected result", () => {
    const fixture = {
      key: "k".repeat(61),
      stage_key: "check",
      inputs: {
        reference: { "Bad-Key": { filename: "a.cnf", content_hash: "sha256:abc", size_bytes: -1 } },
        artifacts: [{ role: "assignment" }],
      },
      expected_result: "error",
      expected_score: "high",
    };
    expect(issuesOf("verifier-contract", { ...minimal, conformance_fixtures: [fixture] })).toEqual([
      ["/conformance_fixtures/0/expected_result", "enum"],
      ["/conformance_fixtures/0/expected_score", "type"],
      ["/conformance_fixtures/0/inputs/artifacts/0/filename", "required"],
      ["/conformance_fixtures/0/inputs/reference/Bad-Key", "pattern"],
      ["/conformance_fixtures/0/inputs/reference/Bad-Key/content_hash", "pattern"],
      ["/conformance_fixtures/0/inputs/reference/Bad-Key/size_bytes", "minimum"],
      ["/conformance_fixtures/0/key", "maxLength"],
    ]);
  });

  it("names a bad slot key in a fixture as a property name", () => {
    const fixture = {
      key: "k",
      stage_key: "check",
      inputs: { reference: { "Bad-Key": { filename: "a" } } },
      expected_result: "verified",
    };
    const issue = onlyIssue("verifier-contract", { ...minimal, conformance_fixtures: [fixture] });
    expect(issue.message).toMatch(/^property name "Bad-Key" must match the pattern/);
  });
});
