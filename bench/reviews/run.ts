/**
 * bench/reviews: the per-judgment cost of the review engine's pure parts.
 *
 * Prints, in one run on one machine:
 * - the rubric check (`checkReviewResponse`: response_schema through the cached ajv validator,
 *   rationale, citations, confidence) against its floor, the bare compiled ajv validator on the
 *   same response;
 * - a k_of_n reduction of a full 25-seat node (`reduceNode`, every step recorded) against its
 *   floor, a plain loop counting the matching responses.
 * Medians of calls per batch after a warm-up; run with `npm run bench:reviews`.
 */
import type { ProtocolNode } from "@svc/schemas";
import { createAjv } from "../../schemas/src/create-ajv.ts";
import { checkReviewResponse } from "../../server/src/reviews/check-review-response.ts";
import { reduceNode } from "../../server/src/reviews/reduce/reduce-node.ts";
import { printSummary } from "../support/measure.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

const responseSchema = {
  type: "object",
  properties: { verdict: { enum: ["accept", "reject"] }, score: { type: "number", minimum: 0, maximum: 10 } },
  required: ["verdict", "score"],
  additionalProperties: false,
};
const reviewNode = {
  id: "readers",
  type: "review",
  reviewers: { kind: "human", count: 25, independent: true, assistance: null },
  rubric: {
    instructions_md: "Judge the proof.",
    response_schema: responseSchema,
    rationale: "required",
    citations: { min_items: 1 },
    confidence: "required",
  },
} as unknown as ProtocolNode;
const reduce = {
  id: "decision",
  type: "reduce",
  inputs: ["readers"],
  op: "k_of_n",
  config: {
    field: "verdict",
    accept: { predicate: { op: "eq", value: "accept" }, k: 13 },
    reject: { predicate: { op: "eq", value: "reject" }, k: 13 },
  },
} as unknown as ProtocolNode;

const submitted = {
  response: { verdict: "accept", score: 7.5 },
  rationale_md: "Every step follows from the previous one.",
  citations: [{ source: "svc://artifacts/art_0000000000", locator: "line 4" }],
  confidence: 0.8,
};
const judgments = Array.from({ length: 25 }, (_, i) => ({
  assignment_id: `ras_${String(i).padStart(10, "0")}`,
  response: { verdict: i % 3 === 0 ? "reject" : "accept", score: i % 10 },
}));

/** Median microseconds per call of `fn` over RUNS batches of CALLS calls. */
function perCall(fn: () => unknown): number {
  for (let i = 0; i < CALLS; i++) fn(); // warm-up
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) fn();
    samples.push(((performance.now() - start) * 1000) / CALLS);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const validate = createAjv().compile(responseSchema);
const bareValidation = perCall(() => validate(submitted.response));
const rubricCheck = perCall(() => checkReviewResponse(reviewNode, submitted));
const plainCount = perCall(() => judgments.filter((j) => j.response.verdict === "accept").length);
const reduction = perCall(() => reduceNode(reduce, { kind: "judgments", judgments }));

const us = (n: number) => `${n.toFixed(2)} µs`;
console.log(
  `rubric check: ${us(rubricCheck)} per response; bare ajv validation ${us(bareValidation)}; ratio ${(rubricCheck / bareValidation).toFixed(1)}x`,
);
console.log(
  `k_of_n over 25 judgments: ${us(reduction)} with every step; plain count ${us(plainCount)}; ratio ${(reduction / plainCount).toFixed(1)}x`,
);
printSummary({
  name: "reviews rubric check",
  figure: rubricCheck,
  baseline: bareValidation,
  unit: "µs",
  baselineName: "bare ajv",
});
printSummary({
  name: "reviews k_of_n 25",
  figure: reduction,
  baseline: plainCount,
  unit: "µs",
  baselineName: "plain count",
});
