import type { ProtocolNode, Rubric } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkReviewResponse } from "../../src/reviews/check-review-response.ts";

const RUBRIC: Rubric = {
  instructions_md: "Judge whether the proof is correct.",
  response_schema: {
    type: "object",
    required: ["verdict", "score"],
    additionalProperties: false,
    properties: {
      verdict: { enum: ["accept", "reject"] },
      score: { type: "integer", minimum: 0, maximum: 5 },
      "a/b": { type: "string" },
    },
  },
  rationale: "required",
  citations: { min_items: 1 },
  confidence: "required",
};

function reviewNode(
  rubric: Partial<Rubric> = {},
  assistance: { required: boolean; allowed: Array<{ provider: string; model: string }> } | null = null,
): ProtocolNode {
  return {
    id: "peer",
    type: "review",
    title: null,
    when: null,
    reviewers: {
      kind: "human",
      count: 2,
      independent: true,
      eligibility: { rule: "any_participant", organization_id: null, user_ids: null },
      allowed: null,
      assistance,
    },
    visibility: { prior_nodes: [], stage_evidence: true, hidden: [] },
    conflicts: { exclude_submitter: true, exclude_submitter_organization: false },
    skills: null,
    rubric: { ...RUBRIC, ...rubric },
    inputs: null,
    op: null,
    config: null,
  };
}

const VALID = {
  response: { verdict: "accept", score: 4 },
  rationale_md: "The induction step holds.",
  citations: [{ source: "svc://artifacts/art_1", locator: "L10-L14", quote: "by induction on n" }],
  confidence: 0.8,
};

describe("checkReviewResponse", () => {
  it("accepts a response that meets the rubric", () => {
    expect(checkReviewResponse(reviewNode(), VALID)).toEqual([]);
  });

  it("reports every response_schema problem with a pointer to the offending value", () => {
    const problems = checkReviewResponse(reviewNode(), {
      ...VALID,
      response: { verdict: "maybe", extra: 1, "a/b": 3 },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "/response/score", message: "is required by the rubric's response_schema; add it" },
        {
          path: "/response/extra",
          message: "is not a property the rubric's response_schema allows; remove it",
        },
        {
          path: "/response/verdict",
          message: 'must be one of ["accept","reject"] (the rubric\'s response_schema); use one of them',
        },
        { path: "/response/a~1b", message: expect.stringMatching(/^must be string/) },
      ]),
    );
    expect(problems).toHaveLength(4);
  });

  it("requires a response", () => {
    const { response: _, ...rest } = VALID;
    expect(checkReviewResponse(reviewNode(), rest)).toEqual([
      { path: "/response", message: expect.stringMatching(/response is required/) },
    ]);
  });

  it("requires a non-blank rationale only when the rubric says so", () => {
    expect(checkReviewResponse(reviewNode(), { ...VALID, rationale_md: "  \n " })).toEqual([
      { path: "/rationale_md", message: expect.stringMatching(/requires a rationale/) },
    ]);
    expect(checkReviewResponse(reviewNode(), { ...VALID, rationale_md: null })).toHaveLength(1);
    expect(
      checkReviewResponse(reviewNode({ rationale: "optional" }), { ...VALID, rationale_md: null }),
    ).toEqual([]);
    expect(checkReviewResponse(reviewNode({ rationale: "optional" }), { ...VALID, rationale_md: 7 })).toEqual(
      [{ path: "/rationale_md", message: expect.stringMatching(/must be a Markdown string/) }],
    );
  });

  it("counts citations against min_items and checks each one's shape and lengths", () => {
    expect(checkReviewResponse(reviewNode({ citations: { min_items: 2 } }), VALID)).toEqual([
      { path: "/citations", message: expect.stringMatching(/at least 2 citations and 1 was given/) },
    ]);
    expect(
      checkReviewResponse(reviewNode({ citations: { min_items: 0 } }), { ...VALID, citations: undefined }),
    ).toEqual([]);
    expect(checkReviewResponse(reviewNode(), { ...VALID, citations: "svc://x" })).toEqual([
      { path: "/citations", message: expect.stringMatching(/must be an array/) },
    ]);
    const problems = checkReviewResponse(reviewNode({ citations: { min_items: 0 } }), {
      ...VALID,
      citations: [
        { source: "", page: 3 },
        { source: "x".repeat(501), locator: "l".repeat(201), quote: "q".repeat(2001) },
        { source: "ok", locator: 5 },
        "svc://a",
      ],
    });
    expect(problems.map((p) => p.path)).toEqual([
      "/citations/0/page",
      "/citations/0/source",
      "/citations/1/source",
      "/citations/1/locator",
      "/citations/1/quote",
      "/citations/2/locator",
      "/citations/3",
    ]);
    expect(problems[2]?.message).toBe("source has 501 characters; it must have 1 to 500, so shorten it");
  });

  it("counts characters as code points, so 500 emoji fit in a source", () => {
    const source = "😀".repeat(500);
    expect(checkReviewResponse(reviewNode(), { ...VALID, citations: [{ source }] })).toEqual([]);
  });

  it("demands a confidence in [0, 1] when required, and in range whenever given", () => {
    expect(checkReviewResponse(reviewNode(), { ...VALID, confidence: null })).toEqual([
      { path: "/confidence", message: expect.stringMatching(/requires a confidence/) },
    ]);
    const optional = reviewNode({ confidence: "optional" });
    expect(checkReviewResponse(optional, { ...VALID, confidence: undefined })).toEqual([]);
    expect(checkReviewResponse(optional, { ...VALID, confidence: 1.5 })).toEqual([
      { path: "/confidence", message: "confidence must be a number from 0 to 1; 1.5 is not" },
    ]);
    expect(checkReviewResponse(optional, { ...VALID, confidence: "0.5" })).toHaveLength(1);
    expect(checkReviewResponse(optional, { ...VALID, confidence: 0 })).toEqual([]);
    expect(checkReviewResponse(optional, { ...VALID, confidence: 1 })).toEqual([]);
  });

  it("requires an assistance declaration when the node does, matched against allowed", () => {
    const node = reviewNode(
      {},
      { required: true, allowed: [{ provider: "anthropic", model: "claude-opus-4-1" }] },
    );
    expect(checkReviewResponse(node, VALID)).toEqual([
      { path: "/assistance", message: expect.stringMatching(/requires declaring the agent/) },
    ]);
    expect(
      checkReviewResponse(node, {
        ...VALID,
        assistance: { provider: "anthropic", model: "claude-opus-4-1", config: null },
      }),
    ).toEqual([]);
    expect(checkReviewResponse(node, { ...VALID, assistance: { provider: "openai", model: "gpt" } })).toEqual(
      [
        {
          path: "/assistance",
          message:
            "openai/gpt is not an assistance this review node allows; declare one of anthropic/claude-opus-4-1",
        },
      ],
    );
  });

  it("accepts any well-formed declaration when allowed is empty, and checks its shape", () => {
    const node = reviewNode({}, { required: false, allowed: [] });
    expect(
      checkReviewResponse(node, { ...VALID, assistance: { provider: "x", model: "y", config: { t: 1 } } }),
    ).toEqual([]);
    const problems = checkReviewResponse(node, {
      ...VALID,
      assistance: { provider: "", model: "m".repeat(121), config: [1], version: 2 },
    });
    expect(problems.map((p) => p.path)).toEqual([
      "/assistance/version",
      "/assistance/provider",
      "/assistance/model",
      "/assistance/config",
    ]);
  });

  it("reports every problem at once", () => {
    const problems = checkReviewResponse(reviewNode(), { response: {}, citations: [], confidence: 2 });
    expect(problems.map((p) => p.path)).toEqual([
      "/response/verdict",
      "/response/score",
      "/rationale_md",
      "/citations",
      "/confidence",
    ]);
  });

  it("follows local $refs, also when the compiled schema is reused from the cache", () => {
    const withRefs = reviewNode({
      response_schema: {
        $id: "https://example.org/verdict.json",
        type: "object",
        required: ["verdict"],
        properties: { verdict: { $ref: "#/$defs/verdict" } },
        $defs: { verdict: { enum: ["accept", "reject"] } },
      },
    });
    for (let round = 0; round < 2; round += 1) {
      expect(checkReviewResponse(withRefs, { ...VALID, response: { verdict: "accept" } })).toEqual([]);
      expect(checkReviewResponse(withRefs, { ...VALID, response: { verdict: "maybe" } })).toEqual([
        { path: "/response/verdict", message: expect.stringMatching(/must be one of \["accept","reject"\]/) },
      ]);
    }
  });

  it("refuses, without throwing, a rubric whose response_schema does not compile", () => {
    const broken = reviewNode({
      response_schema: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
    });
    expect(checkReviewResponse(broken, VALID)).toEqual([
      { path: "/response", message: expect.stringMatching(/does not compile/) },
    ]);
  });

  it("refuses a submission that is not an object", () => {
    expect(checkReviewResponse(reviewNode(), [VALID])).toEqual([{ path: "", message: expect.any(String) }]);
  });

  it("never throws on arbitrary input (property)", () => {
    const node = reviewNode({}, { required: true, allowed: [{ provider: "anthropic", model: "m" }] });
    const loose = fc.record(
      {
        response: fc.anything(),
        rationale_md: fc.anything(),
        citations: fc.oneof(
          fc.anything(),
          fc.array(fc.dictionary(fc.constantFrom("source", "locator", "quote", "x"), fc.anything())),
        ),
        confidence: fc.anything(),
        assistance: fc.oneof(
          fc.anything(),
          fc.dictionary(fc.constantFrom("provider", "model", "config", "y"), fc.anything()),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(loose, fc.anything()), (input) => {
        const problems = checkReviewResponse(node, input);
        for (const p of problems) {
          expect(typeof p.path).toBe("string");
          expect(p.message.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});
