import type { ThresholdAggregate, ThresholdConfig } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reduceThreshold } from "../../../src/reviews/reduce/reduce-threshold.ts";
import type { ReviewJudgment } from "../../../src/reviews/reduction.ts";

const INPUTS = ["scoring"];

function config(aggregate: ThresholdAggregate, accept_gte: number, reject_lt: number): ThresholdConfig {
  return { field: "score", aggregate, accept_gte, reject_lt };
}

function scores(...values: unknown[]): ReviewJudgment[] {
  return values.map((score, i) => ({ assignment_id: `ras_${i + 1}`, response: { score } }));
}

describe("reduceThreshold examples", () => {
  it("mean: accepts at or above accept_gte, rejects below reject_lt, unresolved between", () => {
    expect(reduceThreshold(INPUTS, config("mean", 3, 2), scores(2, 4)).outcome).toBe("accept");
    expect(reduceThreshold(INPUTS, config("mean", 3, 2), scores(1, 2.5)).outcome).toBe("reject");
    expect(reduceThreshold(INPUTS, config("mean", 3, 2), scores(2, 3)).outcome).toBe("unresolved");
  });

  it("mean: records every value read, the mean and the comparison", () => {
    const reduction = reduceThreshold(INPUTS, config("mean", 3, 2), scores(5, 2, 3));
    expect(reduction.op).toBe("threshold");
    expect(reduction.steps).toEqual([
      { description: "response of ras_1 has score = 5: counted", source: "ras_1", value: 5 },
      { description: "response of ras_2 has score = 2: counted", source: "ras_2", value: 2 },
      { description: "response of ras_3 has score = 3: counted", source: "ras_3", value: 3 },
      { description: `mean of [2,3,5] = ${10 / 3}`, source: null, value: 10 / 3 },
      { description: `${10 / 3} >= accept_gte 3: accept`, source: null, value: "accept" },
    ]);
  });

  it("median: the middle value of an odd count", () => {
    const reduction = reduceThreshold(INPUTS, config("median", 4, 2), scores(1, 9, 4));
    expect(reduction.steps[3]?.value).toBe(4);
    expect(reduction.outcome).toBe("accept");
  });

  it("median: the mean of the two middle values of an even count", () => {
    const reduction = reduceThreshold(INPUTS, config("median", 3.5, 3), scores(10, 1, 4, 2));
    expect(reduction.steps[4]).toEqual({ description: "median of [1,2,4,10] = 3", source: null, value: 3 });
    expect(reduction.outcome).toBe("unresolved");
  });

  it("min and max take the lowest and the highest value", () => {
    expect(reduceThreshold(INPUTS, config("min", 3, 3), scores(5, 2, 4)).outcome).toBe("reject");
    expect(reduceThreshold(INPUTS, config("max", 5, 3), scores(5, 2, 4)).outcome).toBe("accept");
  });

  it("passes over responses without the field or with a non-numeric value", () => {
    const judgments: ReviewJudgment[] = [
      ...scores("9", null, 4),
      { assignment_id: "ras_x", response: { other: 1 } },
    ];
    const reduction = reduceThreshold(INPUTS, config("mean", 4, 1), judgments);
    expect(reduction.outcome).toBe("accept");
    expect(reduction.steps.map((s) => s.description)).toEqual([
      'response of ras_1 has score = "9": not a number, not counted',
      "response of ras_2 has score = null: not a number, not counted",
      "response of ras_3 has score = 4: counted",
      "response of ras_x has no score: not counted",
      "mean of [4] = 4",
      "4 >= accept_gte 4: accept",
    ]);
  });

  it("is unresolved when no response has a numeric value", () => {
    const reduction = reduceThreshold(INPUTS, config("max", 0, 0), scores("high"));
    expect(reduction.outcome).toBe("unresolved");
    expect(reduction.steps.at(-1)?.description).toBe("no response has a numeric score: unresolved");
    expect(reduceThreshold(INPUTS, config("mean", 0, 0), []).outcome).toBe("unresolved");
  });

  it("answers unresolved when a config breaking rule 14 lets both hold", () => {
    const reduction = reduceThreshold(INPUTS, config("mean", 2, 5), scores(3));
    expect(reduction.outcome).toBe("unresolved");
    expect(reduction.steps.at(-1)?.description).toMatch(/rule 14/);
  });

  it("keeps the mean of huge values finite", () => {
    const reduction = reduceThreshold(INPUTS, config("mean", 1e308, 0), scores(1.5e308, 1.5e308));
    expect(reduction.steps[2]?.value).toBe(1.5e308);
    expect(reduction.outcome).toBe("accept");
  });
});

const aggregate = fc.constantFrom<ThresholdAggregate>("mean", "median", "min", "max");
const finite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
/** reject_lt <= accept_gte, as rule 14 demands. */
const validConfig = fc
  .tuple(aggregate, finite, finite)
  .map(([agg, a, b]) => config(agg, Math.max(a, b), Math.min(a, b)));

describe("reduceThreshold properties", () => {
  it("does not depend on the order of the judgments, not even in the last bit of a mean", () => {
    fc.assert(
      fc.property(
        validConfig,
        fc
          .array(finite, { maxLength: 9 })
          .chain((values) =>
            fc.tuple(fc.constant(values), fc.shuffledSubarray(values, { minLength: values.length })),
          ),
        (cfg, [values, shuffled]) => {
          const a = reduceThreshold(INPUTS, cfg, scores(...values));
          const b = reduceThreshold(INPUTS, cfg, scores(...shuffled));
          expect(b.outcome).toBe(a.outcome);
          expect(b.steps.slice(values.length)).toEqual(a.steps.slice(values.length));
        },
      ),
    );
  });

  it("agrees with the comparison it records, and never lets both outcomes hold under rule 14", () => {
    fc.assert(
      fc.property(validConfig, fc.array(finite, { minLength: 1, maxLength: 9 }), (cfg, values) => {
        const reduction = reduceThreshold(INPUTS, cfg, scores(...values));
        const value = reduction.steps[values.length]!.value as number;
        const expected = value >= cfg.accept_gte ? "accept" : value < cfg.reject_lt ? "reject" : "unresolved";
        expect(reduction.outcome).toBe(expected);
        expect(value >= cfg.accept_gte && value < cfg.reject_lt).toBe(false);
      }),
    );
  });

  it("never turns accept into reject when a value at or above accept_gte is added", () => {
    const small = fc.integer({ min: -50, max: 50 });
    fc.assert(
      fc.property(
        aggregate,
        small,
        small,
        fc.array(small, { maxLength: 8 }),
        small,
        (agg, a, b, values, extra) => {
          const cfg = config(agg, Math.max(a, b), Math.min(a, b));
          fc.pre(reduceThreshold(INPUTS, cfg, scores(...values)).outcome === "accept");
          const added = cfg.accept_gte + Math.abs(extra);
          expect(reduceThreshold(INPUTS, cfg, scores(...values, added)).outcome).toBe("accept");
        },
      ),
    );
  });

  it("never throws on arbitrary responses", () => {
    fc.assert(
      fc.property(validConfig, fc.array(fc.anything(), { maxLength: 6 }), (cfg, responses) => {
        const list = responses.map((r, i) => ({
          assignment_id: `ras_${i}`,
          response: r as Record<string, unknown>,
        }));
        expect(["accept", "reject", "unresolved"]).toContain(reduceThreshold(INPUTS, cfg, list).outcome);
      }),
    );
  });
});
