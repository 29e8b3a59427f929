import { describe, expect, it } from "vitest";
import { checkSchema } from "../src/index.ts";
import { issuesOf, onlyIssue, validExample } from "./fixtures.ts";

describe("campaign.json schema", () => {
  const campaign = validExample("campaign", "minimal");

  it("requires slug, title and summary and refuses unknown keys", () => {
    expect(issuesOf("campaign", { owner: "me" })).toEqual([
      ["/owner", "additionalProperties"],
      ["/slug", "required"],
      ["/summary", "required"],
      ["/title", "required"],
    ]);
  });

  it("lists the allowed statuses", () => {
    expect(onlyIssue("campaign", { ...campaign, status: "archived" }).message).toBe(
      '"status" must be one of "draft", "active"; got "archived"',
    );
  });
});

describe("link.json schema", () => {
  const link = validExample("link", "minimal");

  it("requires all five keys", () => {
    expect(issuesOf("link", {})).toEqual([
      ["/content_hash", "required"],
      ["/filename", "required"],
      ["/media_type", "required"],
      ["/size_bytes", "required"],
      ["/url", "required"],
    ]);
  });

  it("needs an https url without spaces, at most 2048 characters", () => {
    expect(issuesOf("link", { ...link, url: "http://data.example.org/a" })).toEqual([["/url", "pattern"]]);
    expect(issuesOf("link", { ...link, url: "https://data.example.org/a b" })).toEqual([["/url", "pattern"]]);
    expect(issuesOf("link", { ...link, url: `https://a.example/${"x".repeat(2048)}` })).toEqual([
      ["/url", "maxLength"],
    ]);
  });

  it("explains the hash format and truncates a long bad value", () => {
    const issue = onlyIssue("link", { ...link, content_hash: "md5:".padEnd(100, "0") });
    expect(issue.message).toBe(
      `"content_hash" must match the pattern ^sha256:[0-9a-f]{64}$ (sha256: followed by 64 lowercase hex characters); got "${"md5:".padEnd(60, "0")}…"`,
    );
  });

  it("needs a whole, non-negative size and bounded media type and filename", () => {
    expect(issuesOf("link", { ...link, size_bytes: -1, media_type: "", filename: "x".repeat(256) })).toEqual([
      ["/filename", "maxLength"],
      ["/media_type", "minLength"],
      ["/size_bytes", "minimum"],
    ]);
    expect(onlyIssue("link", { ...link, size_bytes: 1.5 }).message).toBe(
      '"size_bytes" must be an integer; got a number',
    );
  });
});

describe("SKILL.md frontmatter schema", () => {
  const frontmatter = validExample("skill-frontmatter", "minimal");

  it("needs a hyphenated lowercase name of at most 64 characters", () => {
    expect(issuesOf("skill-frontmatter", { ...frontmatter, name: "SAT_solving" })).toEqual([
      ["/name", "pattern"],
    ]);
    expect(issuesOf("skill-frontmatter", { ...frontmatter, name: "a".repeat(65) })).toEqual([
      ["/name", "maxLength"],
    ]);
  });

  it("bounds the description to 1..1024 characters", () => {
    expect(issuesOf("skill-frontmatter", { ...frontmatter, description: "" })).toEqual([
      ["/description", "minLength"],
    ]);
    expect(issuesOf("skill-frontmatter", { ...frontmatter, description: "x".repeat(1025) })).toEqual([
      ["/description", "maxLength"],
    ]);
  });

  it("allows license and metadata and refuses other keys", () => {
    expect(checkSchema("skill-frontmatter", validExample("skill-frontmatter", "full")).valid).toBe(true);
    expect(issuesOf("skill-frontmatter", { ...frontmatter, version: "1" })).toEqual([
      ["/version", "additionalProperties"],
    ]);
  });
});

describe("lint record schema", () => {
  const record = validExample("lint-record", "minimal");

  it("lists the lint codes", () => {
    expect(issuesOf("lint-record", { ...record, code: "warning" })).toEqual([["/code", "enum"]]);
  });

  it("needs path to be a JSON Pointer", () => {
    expect(issuesOf("lint-record", { ...record, path: "stages.0" })).toEqual([["/path", "pattern"]]);
    expect(issuesOf("lint-record", { ...record, path: "/a~2" })).toEqual([["/path", "pattern"]]);
  });

  it("carries a rule number 1..16 on rule_violation only", () => {
    expect(issuesOf("lint-record", { ...record, code: "rule_violation", rule: 17 })).toEqual([
      ["/rule", "maximum"],
    ]);
    expect(onlyIssue("lint-record", { ...record, rule: 3 }).path).toBe("/code");
  });
});

describe("plan schema", () => {
  const plan = validExample("plan", "full");
  const problem = (plan.problems as Record<string, unknown>[])[0]!;

  it("requires every key of a planned problem", () => {
    const { sealing: _s, review_protocol: _r, ...rest } = problem;
    expect(issuesOf("plan", { ...plan, problems: [rest] })).toEqual([
      ["/problems/0/review_protocol", "required"],
      ["/problems/0/sealing", "required"],
    ]);
  });

  it("keys mechanisms by content hash", () => {
    const skills = { "sat-solving": (plan.skills as Record<string, unknown>)[`sha256:${"1".repeat(64)}`] };
    const issue = onlyIssue("plan", { ...plan, skills });
    expect(issue).toMatchObject({ path: "/skills/sat-solving", keyword: "pattern" });
  });

  it("refuses an implementation whose network is not none", () => {
    const key = `sha256:${"5".repeat(64)}`;
    const implementation = (plan.verifier_implementations as Record<string, Record<string, unknown>>)[key]!;
    const limits = { ...(implementation.limits as object), network: "host" };
    expect(
      issuesOf("plan", { ...plan, verifier_implementations: { [key]: { ...implementation, limits } } }),
    ).toEqual([[`/verifier_implementations/${key}/limits/network`, "const"]]);
  });

  it("takes null or a hash for a problem's contract and protocol, and null or a vct_ id for a published contract", () => {
    const changed = {
      ...problem,
      verifier_contract: "vct_0123456789",
      published_verifier_contract: `sha256:${"4".repeat(64)}`,
    };
    expect(issuesOf("plan", { ...plan, problems: [changed] })).toEqual([
      ["/problems/0/published_verifier_contract", "pattern"],
      ["/problems/0/verifier_contract", "pattern"],
    ]);
  });
});
