import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseReviewReply } from "../../../src/reviews/agents/parse-review-reply.ts";
import { GOOD_REPLY } from "./review-request-fixture.ts";

describe("parseReviewReply", () => {
  it("takes the submit_review tool input, only its four review fields", () => {
    const parsed = parseReviewReply([
      { type: "text", text: "thinking aloud" },
      {
        type: "tool_use",
        name: "submit_review",
        input: { ...GOOD_REPLY, assistance: { provider: "x", model: "y" } },
      },
    ]);
    expect(parsed).toEqual(GOOD_REPLY);
  });

  it("fills absent optional fields with null and an empty citation list", () => {
    expect(
      parseReviewReply([
        { type: "tool_use", name: "submit_review", input: { response: { verdict: "reject" } } },
      ]),
    ).toEqual({
      response: { verdict: "reject" },
      rationale_md: null,
      citations: [],
      confidence: null,
    });
  });

  it("falls back to a JSON object in text: bare, fenced, or inside prose", () => {
    const json = JSON.stringify(GOOD_REPLY);
    expect(parseReviewReply([{ type: "text", text: json }])).toEqual(GOOD_REPLY);
    expect(
      parseReviewReply([{ type: "text", text: `Here it is:\n\`\`\`json\n${json}\n\`\`\`\nDone.` }]),
    ).toEqual(GOOD_REPLY);
    expect(parseReviewReply([{ type: "text", text: `My review: ${json} -- end` }])).toEqual(GOOD_REPLY);
  });

  it("throws when there is nothing to parse", () => {
    expect(() => parseReviewReply([{ type: "text", text: "I think it is fine." }])).toThrow(
      /no submit_review tool use and no JSON object/,
    );
    expect(() => parseReviewReply([{ type: "text", text: '{"verdict": "accept"}' }])).toThrow(
      /no JSON object with a response/,
    );
    expect(() => parseReviewReply([])).toThrow();
    expect(() => parseReviewReply([{ type: "tool_use", name: "submit_review", input: "accept" }])).toThrow(
      /without a response object/,
    );
  });

  it("ignores tool uses of other tools", () => {
    expect(() => parseReviewReply([{ type: "tool_use", name: "web_search", input: GOOD_REPLY }])).toThrow();
  });

  it("finds any reply object embedded in arbitrary prose (property)", () => {
    const noBraces = fc.string().map((s) => s.replace(/[{}`]/g, ""));
    fc.assert(
      fc.property(noBraces, fc.jsonValue(), noBraces, (before, response, after) => {
        const reply = { response, rationale_md: "r", citations: [], confidence: 0.5 };
        const parsed = parseReviewReply([
          { type: "text", text: `${before}${JSON.stringify(reply)}${after}` },
        ]);
        // What the text carries is the JSON round trip: -0 reads back as 0.
        expect(parsed).toEqual(JSON.parse(JSON.stringify(reply)));
      }),
      { numRuns: 1000 },
    );
  });

  it("either parses or throws an Error, on arbitrary text and blocks (property)", () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant("text"), text: fc.string() }),
      fc.record({
        type: fc.constant("tool_use"),
        name: fc.constantFrom("submit_review", "other"),
        input: fc.anything(),
      }),
      fc.record({ type: fc.string() }),
    );
    fc.assert(
      fc.property(fc.array(block, { maxLength: 4 }), (blocks) => {
        try {
          const parsed = parseReviewReply(blocks);
          expect(parsed).toHaveProperty("response");
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
          expect((error as Error).message).toMatch(/agent/);
        }
      }),
    );
  });
});
