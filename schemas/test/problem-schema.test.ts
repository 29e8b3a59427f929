import { describe, expect, it } from "vitest";
import { checkSchema } from "../src/index.ts";
import { issuesOf, onlyIssue, validExample } from "./fixtures.ts";

const minimal = validExample("problem", "minimal");
const sealing = {
  sealed_until: "2027-01-01T00:00:00Z",
  score_release: { mode: "immediate" },
  submission_limit: { max_submissions: 3, window_hours: 24 },
};

describe("problem.json schema", () => {
  it("points an unknown property at the property and lists the allowed ones", () => {
    const issue = onlyIssue("problem", { ...minimal, titel: "x" });
    expect(issue.path).toBe("/titel");
    expect(issue.keyword).toBe("additionalProperties");
    expect(issue.message).toBe(
      'unknown property "titel"; remove it (allowed: slug, title, summary, structure, priority_weight, campaign, verifier_contract, skills, benchmark, revision_note, sealing)',
    );
  });

  it("points a missing required property at the property", () => {
    const { title: _title, ...rest } = minimal;
    expect(onlyIssue("problem", rest)).toEqual({
      path: "/title",
      keyword: "required",
      message: '"title" is required',
    });
  });

  it("reports every missing required property of an empty object, in path order", () => {
    expect(issuesOf("problem", {})).toEqual([
      ["/slug", "required"],
      ["/summary", "required"],
      ["/title", "required"],
    ]);
  });

  it("shows the pattern and the bad value for a bad slug", () => {
    const issue = onlyIssue("problem", { ...minimal, slug: "Two_Sum" });
    expect(issue).toMatchObject({ path: "/slug", keyword: "pattern" });
    expect(issue.message).toContain("^[a-z0-9]+(-[a-z0-9]+)*$");
    expect(issue.message).toContain('got "Two_Sum"');
  });

  it("refuses a slug longer than 64 characters", () => {
    expect(issuesOf("problem", { ...minimal, slug: "a".repeat(65) })).toEqual([["/slug", "maxLength"]]);
  });

  it("refuses a title with a newline, saying it must be one line", () => {
    const issue = onlyIssue("problem", { ...minimal, title: "Two\nsum" });
    expect(issue).toMatchObject({ path: "/title", keyword: "pattern" });
    expect(issue.message).toContain("must be a single line");
  });

  it("refuses an empty summary and a summary over 1000 characters", () => {
    expect(onlyIssue("problem", { ...minimal, summary: "" }).message).toBe('"summary" must not be empty');
    expect(issuesOf("problem", { ...minimal, summary: "x".repeat(1001) })).toEqual([
      ["/summary", "maxLength"],
    ]);
  });

  it("lists the allowed structures", () => {
    const issue = onlyIssue("problem", { ...minimal, structure: "SOLVED" });
    expect(issue).toMatchObject({ path: "/structure", keyword: "enum" });
    expect(issue.message).toBe('"structure" must be one of "SOLVE", "BENCHMARK", "DISCOVERY"; got "SOLVED"');
  });

  it("says the limit for an out-of-range priority_weight", () => {
    expect(onlyIssue("problem", { ...minimal, priority_weight: 1.5 })).toEqual({
      path: "/priority_weight",
      keyword: "maximum",
      message: '"priority_weight" must be at most 1; got 1.5',
    });
    expect(issuesOf("problem", { ...minimal, priority_weight: -0.1 })).toEqual([
      ["/priority_weight", "minimum"],
    ]);
  });

  it("requires a benchmark block on a BENCHMARK problem, at /benchmark", () => {
    const issue = onlyIssue("problem", { ...minimal, structure: "BENCHMARK" });
    expect(issue).toMatchObject({ path: "/benchmark", keyword: "required" });
    expect(issue.message).toContain("a BENCHMARK problem needs a benchmark block");
  });

  it.each(["SOLVE", "DISCOVERY", undefined])(
    "refuses a benchmark block when structure is %s",
    (structure) => {
      const problem = { ...minimal, structure, benchmark: { metric_name: "time", direction: "minimize" } };
      const issue = onlyIssue("problem", JSON.parse(JSON.stringify(problem)));
      expect(issue).toMatchObject({ path: "/benchmark", keyword: "not" });
      expect(issue.message).toContain("only a BENCHMARK problem has a benchmark block");
    },
  );

  it("checks the benchmark block itself", () => {
    const benchmark = { metric_name: "", direction: "down", extra: true };
    expect(issuesOf("problem", { ...minimal, structure: "BENCHMARK", benchmark })).toEqual([
      ["/benchmark/direction", "enum"],
      ["/benchmark/extra", "additionalProperties"],
      ["/benchmark/metric_name", "minLength"],
    ]);
  });

  it("refuses a campaign that is not a slug and a verifier_contract that is not a vct_ id", () => {
    expect(
      issuesOf("problem", {
        ...minimal,
        campaign: "My Campaign",
        verifier_contract: "./verifier-contract.json",
      }),
    ).toEqual([
      ["/campaign", "pattern"],
      ["/verifier_contract", "pattern"],
    ]);
  });

  it("accepts skills as ids or objects, and refuses bad ids, duplicates, bad requirements and more than 20", () => {
    expect(issuesOf("problem", { ...minimal, skills: ["skl_0123456789"] })).toEqual([
      ["/skills/0", "pattern"],
    ]);
    expect(issuesOf("problem", { ...minimal, skills: ["skv_0123456789", "skv_0123456789"] })).toEqual([
      ["/skills", "uniqueItems"],
    ]);
    expect(
      issuesOf("problem", {
        ...minimal,
        skills: [{ skill_version_id: "skv_0123456789", requirement: "optional" }],
      }),
    ).toEqual([["/skills/0/requirement", "enum"]]);
    expect(issuesOf("problem", { ...minimal, skills: [{ requirement: "required" }] })).toEqual([
      ["/skills/0/skill_version_id", "required"],
    ]);
    const many = Array.from({ length: 21 }, (_, i) => `skv_${String(i).padStart(10, "0")}`);
    expect(issuesOf("problem", { ...minimal, skills: many })).toEqual([["/skills", "maxItems"]]);
  });

  it("says a skill of the wrong type must be a string or an object", () => {
    expect(onlyIssue("problem", { ...minimal, skills: [7] }).message).toBe(
      'item 0 of "skills" must be a string or an object; got an integer',
    );
  });

  it("refuses a revision_note over 5000 characters", () => {
    expect(issuesOf("problem", { ...minimal, revision_note: "x".repeat(5001) })).toEqual([
      ["/revision_note", "maxLength"],
    ]);
  });

  it("refuses the derived sealing field evaluation_id, and the other derived fields", () => {
    const issue = onlyIssue("problem", {
      ...minimal,
      sealing: { ...sealing, evaluation_id: "sev_0123456789abcdef0123456789abcdef" },
    });
    expect(issue).toMatchObject({ path: "/sealing/evaluation_id", keyword: "additionalProperties" });
    expect(
      issuesOf("problem", { ...minimal, sealing: { ...sealing, unsealed_at: null, release_event: null } }),
    ).toEqual([
      ["/sealing/release_event", "additionalProperties"],
      ["/sealing/unsealed_at", "additionalProperties"],
    ]);
  });

  it("checks sealing shapes: dates, modes, quotas and entries", () => {
    const bad = {
      sealed_until: "next year",
      submission_closes_at: "2027-01-01",
      score_release: { mode: "later", release_at: null },
      submission_limit: { max_submissions: 1001, window_hours: 0 },
      entries: "solo",
    };
    expect(issuesOf("problem", { ...minimal, sealing: bad })).toEqual([
      ["/sealing/entries", "enum"],
      ["/sealing/score_release/mode", "enum"],
      ["/sealing/sealed_until", "format"],
      ["/sealing/submission_closes_at", "format"],
      ["/sealing/submission_limit/max_submissions", "maximum"],
      ["/sealing/submission_limit/window_hours", "minimum"],
    ]);
  });

  it("requires sealed_until, score_release and submission_limit in sealing", () => {
    expect(issuesOf("problem", { ...minimal, sealing: {} })).toEqual([
      ["/sealing/score_release", "required"],
      ["/sealing/sealed_until", "required"],
      ["/sealing/submission_limit", "required"],
    ]);
  });

  it("leaves sealing date ordering and mode rules to lint", () => {
    const policy = { ...sealing, score_release: { mode: "final_only" }, entries: "independent" };
    expect(checkSchema("problem", { ...minimal, sealing: policy }).valid).toBe(true);
  });

  it("says what a whole document of the wrong type should be", () => {
    expect(onlyIssue("problem", [])).toEqual({
      path: "",
      keyword: "type",
      message: "the document must be an object; got an array",
    });
  });
});
