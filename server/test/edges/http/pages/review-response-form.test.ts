import type { ProtocolNode } from "@svc/schemas";
import { type DefaultTreeAdapterMap, parse } from "parse5";
import { describe, expect, it } from "vitest";
import { html } from "../../../../src/edges/http/html/html.ts";
import {
  readResponseForm,
  renderResponseForm,
  responseFields,
} from "../../../../src/edges/http/pages/review-response-form.ts";
import { checkReviewResponse } from "../../../../src/reviews/check-review-response.ts";
import { fixtureNode } from "../../../reviews/surface/support/review-fixture.ts";

type Element = DefaultTreeAdapterMap["element"];

const SCHEMA = {
  type: "object",
  properties: {
    verdict: { enum: ["accept", "reject"], description: "Your call." },
    score: { type: "number", minimum: 0, maximum: 10 },
    count: { type: "integer" },
    sound: { type: "boolean" },
    note: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    level: { const: 3 },
  },
  required: ["verdict", "score"],
  additionalProperties: false,
};
const RUBRIC = {
  instructions_md: "Judge it.",
  response_schema: SCHEMA,
  rationale: "optional",
  citations: { min_items: 1 },
  confidence: "optional",
};
const node = { ...fixtureNode("panel"), rubric: RUBRIC } as unknown as ProtocolNode;

function elements(markup: string): Element[] {
  const out: Element[] = [];
  const walk = (n: DefaultTreeAdapterMap["node"]) => {
    if ("tagName" in n) out.push(n);
    for (const child of "childNodes" in n ? n.childNodes : []) walk(child);
  };
  walk(parse(markup));
  return out;
}
const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value;

/**
 * The response form generated from a rubric: one control per property by its kind, and the
 * posted text read back into submit_review_response's input, which the rubric check then judges
 * (a value of the wrong type is passed on so the check names it).
 */
describe("the review response form", () => {
  it("has one control per property of the response schema, by kind", () => {
    expect(responseFields(SCHEMA)!.map((f) => [f.name, f.kind, f.required])).toEqual([
      ["verdict", "enum", true],
      ["score", "number", true],
      ["count", "integer", false],
      ["sound", "boolean", false],
      ["note", "string", false],
      ["tags", "json", false],
      ["level", "enum", false],
    ]);
    expect(responseFields({ type: "array" })).toBeNull();
    const markup = renderResponseForm(RUBRIC, {
      action: "/review-assignments/ras_x/response",
      csrf: html`<input type="hidden" name="_csrf" value="t">`,
      values: { "response.verdict": '"reject"', "response.score": "4.5", "citations.0.source": "a<b" },
    }).toString();
    const all = elements(markup);
    const byName = (name: string) => all.find((e) => attr(e, "name") === name)!;
    expect(byName("response.verdict").tagName).toBe("select");
    const options = all.filter((e) => e.tagName === "option" && e.parentNode === byName("response.verdict"));
    expect(options.map((o) => attr(o, "value"))).toEqual(["", '"accept"', '"reject"']);
    expect(options.filter((o) => attr(o, "selected") !== undefined).map((o) => attr(o, "value"))).toEqual([
      '"reject"',
    ]);
    expect([attr(byName("response.score"), "type"), attr(byName("response.score"), "step")]).toEqual([
      "number",
      "any",
    ]);
    expect(attr(byName("response.score"), "value")).toBe("4.5");
    // The schema's bounds and `required` reach the browser's own checks.
    expect([attr(byName("response.score"), "min"), attr(byName("response.score"), "max")]).toEqual([
      "0",
      "10",
    ]);
    expect(attr(byName("response.score"), "required")).toBe("");
    expect(attr(byName("response.verdict"), "required")).toBe("");
    expect(attr(byName("response.count"), "required")).toBeUndefined();
    expect(attr(byName("response.count"), "min")).toBeUndefined();
    expect(attr(byName("response.count"), "step")).toBe("1");
    expect(byName("response.sound").tagName).toBe("select");
    expect(byName("response.note").tagName).toBe("textarea");
    expect(byName("response.tags").tagName).toBe("textarea");
    expect(attr(byName("citations.0.source"), "value")).toBe("a<b");
    // Every control has a label that names it.
    const labelled = new Set(all.filter((e) => e.tagName === "label").map((e) => attr(e, "for")));
    for (const control of all.filter((e) => ["input", "select", "textarea"].includes(e.tagName))) {
      if (attr(control, "type") !== "hidden") expect(labelled.has(attr(control, "id"))).toBe(true);
    }
  });

  it("reads the posted text back into the tool's input, which the rubric accepts", () => {
    const input = readResponseForm(RUBRIC, {
      "response.verdict": '"accept"',
      "response.score": "7.5",
      "response.count": "3",
      "response.sound": "true",
      "response.note": "fine",
      "response.tags": '["a", "b"]',
      "response.level": "3",
      rationale_md: "  ",
      "citations.0.source": "svc://artifacts/a.txt",
      "citations.0.locator": "line 2",
      "citations.0.quote": "",
      "citations.1.source": "",
      "citations.1.locator": "",
      "citations.1.quote": "",
      confidence: "0.25",
      "assistance.provider": "",
      "assistance.model": "",
    });
    expect(input).toEqual({
      response: {
        verdict: "accept",
        score: 7.5,
        count: 3,
        sound: true,
        note: "fine",
        tags: ["a", "b"],
        level: 3,
      },
      rationale_md: null,
      citations: [{ source: "svc://artifacts/a.txt", locator: "line 2" }],
      confidence: 0.25,
      assistance: null,
    });
    expect(checkReviewResponse(node, input)).toEqual([]);
  });

  it("passes wrong values on as text, so the rubric check names each one", () => {
    const input = readResponseForm(RUBRIC, {
      "response.score": "lots",
      "response.tags": "not json",
      confidence: "sure",
      "assistance.provider": "acme",
    });
    expect(input.response).toEqual({ score: "lots", tags: "not json" });
    const paths = checkReviewResponse(node, input).map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/response/score",
        "/response/tags",
        "/citations",
        "/confidence",
        "/assistance/model",
      ]),
    );
    expect(
      paths.some((p) => p.startsWith("/response") && p !== "/response/score" && p !== "/response/tags"),
    ).toBe(true);
  });
});
