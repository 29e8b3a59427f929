import type { ReduceOutcome } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reduceCoalesce } from "../../../src/reviews/reduce/reduce-coalesce.ts";

describe("reduceCoalesce examples", () => {
  it("takes the first resolved outcome in priority order, passing over skipped and unresolved inputs", () => {
    const inputs = ["escalation", "humans", "agents", "fallback"];
    const reduction = reduceCoalesce(inputs, [
      { node_id: "escalation", outcome: null },
      { node_id: "humans", outcome: "unresolved" },
      { node_id: "agents", outcome: "reject" },
      { node_id: "fallback", outcome: "accept" },
    ]);
    expect(reduction).toEqual({
      op: "coalesce",
      inputs,
      outcome: "reject",
      steps: [
        {
          description: "escalation (input 1 of 4) was skipped and emitted nothing: passed over",
          source: "escalation",
          value: null,
        },
        {
          description: "humans (input 2 of 4) emitted unresolved: passed over",
          source: "humans",
          value: "unresolved",
        },
        {
          description: "agents (input 3 of 4) emitted reject: the first resolved outcome",
          source: "agents",
          value: "reject",
        },
        { description: "reject, from agents", source: null, value: "reject" },
      ],
    });
  });

  it("is unresolved when no input is resolved", () => {
    const reduction = reduceCoalesce(
      ["a", "b"],
      [
        { node_id: "a", outcome: "unresolved" },
        { node_id: "b", outcome: null },
      ],
    );
    expect(reduction.outcome).toBe("unresolved");
    expect(reduction.steps.at(-1)?.description).toBe("no input emitted accept or reject: unresolved");
  });

  it("follows the node's inputs, not the order the outcomes are listed in, and counts a missing one as skipped", () => {
    const reduction = reduceCoalesce(
      ["human", "agent"],
      [
        { node_id: "agent", outcome: "reject" },
        { node_id: "human", outcome: "accept" },
      ],
    );
    expect(reduction.outcome).toBe("accept");
    expect(reduceCoalesce(["human", "agent"], [{ node_id: "agent", outcome: "reject" }]).outcome).toBe(
      "reject",
    );
  });
});

describe("reduceCoalesce properties", () => {
  it("returns the first resolved input outcome, else unresolved", () => {
    const outcome = fc.constantFrom<ReduceOutcome | null>("accept", "reject", "unresolved", null);
    fc.assert(
      fc.property(fc.array(outcome, { minLength: 1, maxLength: 20 }), (outcomes) => {
        const inputs = outcomes.map((_, i) => `node_${i}`);
        const reduction = reduceCoalesce(
          inputs,
          outcomes.map((o, i) => ({ node_id: `node_${i}`, outcome: o })),
        );
        const first = outcomes.find((o) => o === "accept" || o === "reject") ?? "unresolved";
        expect(reduction.outcome).toBe(first);
        expect(reduction.steps.at(-1)?.value).toBe(first);
      }),
    );
  });
});
