import type { ProtocolNode } from "@svc/schemas";
import { describe, expect, it } from "vitest";
import { reduceNode } from "../../../src/reviews/reduce/reduce-node.ts";

function reduceNodeOf(fields: Pick<ProtocolNode, "id" | "inputs" | "op" | "config">): ProtocolNode {
  return {
    type: "reduce",
    title: null,
    when: null,
    reviewers: null,
    visibility: null,
    conflicts: null,
    skills: null,
    rubric: null,
    ...fields,
  };
}

const kOfN = reduceNodeOf({
  id: "decision",
  inputs: ["peer"],
  op: "k_of_n",
  config: {
    field: "verdict",
    accept: { predicate: { op: "eq", value: "accept" }, k: 2 },
    reject: { predicate: { op: "eq", value: "reject" }, k: 1 },
  },
});
const threshold = reduceNodeOf({
  id: "scored",
  inputs: ["peer"],
  op: "threshold",
  config: { field: "score", aggregate: "median", accept_gte: 3, reject_lt: 2 },
});
const coalesce = reduceNodeOf({ id: "final", inputs: ["decision", "scored"], op: "coalesce", config: {} });
const judgments = [
  { assignment_id: "ras_1", response: { verdict: "accept", score: 4 } },
  { assignment_id: "ras_2", response: { verdict: "accept", score: 1 } },
];

describe("reduceNode", () => {
  it("dispatches each op to its reducer with the node's inputs", () => {
    expect(reduceNode(kOfN, { kind: "judgments", judgments })).toMatchObject({
      op: "k_of_n",
      inputs: ["peer"],
      outcome: "accept",
    });
    expect(reduceNode(threshold, { kind: "judgments", judgments })).toMatchObject({
      op: "threshold",
      outcome: "unresolved",
    });
    const outcomes = [
      { node_id: "decision", outcome: "unresolved" as const },
      { node_id: "scored", outcome: "reject" as const },
    ];
    expect(reduceNode(coalesce, { kind: "outcomes", outcomes })).toMatchObject({
      op: "coalesce",
      inputs: ["decision", "scored"],
      outcome: "reject",
    });
  });

  it("throws on a caller's mistake: a review node, or the wrong kind of input", () => {
    expect(() =>
      reduceNode({ ...kOfN, type: "review", op: null, config: null }, { kind: "judgments", judgments }),
    ).toThrow(/not a reduce node/);
    expect(() => reduceNode(kOfN, { kind: "outcomes", outcomes: [] })).toThrow(/reads judgments/);
    expect(() => reduceNode(coalesce, { kind: "judgments", judgments })).toThrow(
      /reads its inputs' outcomes/,
    );
  });
});
