import type { KOfNConfig, Scalar } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reduceKOfN } from "../../../src/reviews/reduce/reduce-k-of-n.ts";
import type { ReviewJudgment } from "../../../src/reviews/reduction.ts";

const INPUTS = ["peer_review"];

/** Two reviewers: accept needs both, reject needs one (2 + 1 > 2, rule 13). */
const TWO: KOfNConfig = {
  field: "verdict",
  accept: { predicate: { op: "eq", value: "accept" }, k: 2 },
  reject: { predicate: { op: "eq", value: "reject" }, k: 1 },
};

function judgments(...responses: Array<Record<string, unknown>>): ReviewJudgment[] {
  return responses.map((response, i) => ({ assignment_id: `ras_${i + 1}`, response }));
}

describe("reduceKOfN examples", () => {
  it("accepts when both of two reviewers accept", () => {
    const reduction = reduceKOfN(INPUTS, TWO, judgments({ verdict: "accept" }, { verdict: "accept" }));
    expect(reduction.outcome).toBe("accept");
    expect(reduction.op).toBe("k_of_n");
    expect(reduction.inputs).toEqual(INPUTS);
  });

  it("rejects when one of two reviewers rejects", () => {
    expect(reduceKOfN(INPUTS, TWO, judgments({ verdict: "accept" }, { verdict: "reject" })).outcome).toBe(
      "reject",
    );
  });

  it("is unresolved when too few match either side", () => {
    expect(reduceKOfN(INPUTS, TWO, judgments({ verdict: "accept" })).outcome).toBe("unresolved");
    expect(reduceKOfN(INPUTS, TWO, []).outcome).toBe("unresolved");
  });

  it("treats a response without the field as matching neither", () => {
    const reduction = reduceKOfN(INPUTS, TWO, judgments({ verdict: "accept" }, { score: 3 }));
    expect(reduction.outcome).toBe("unresolved");
    expect(reduction.steps[1]).toEqual({
      description: "response of ras_2 has no verdict: matches neither",
      source: "ras_2",
      value: null,
    });
  });

  it('compares by JSON equality, so 1 and "1" and true differ', () => {
    const config: KOfNConfig = {
      field: "grade",
      accept: { predicate: { op: "eq", value: 1 }, k: 1 },
      reject: { predicate: { op: "eq", value: 0 }, k: 1 },
    };
    const { outcome } = reduceKOfN(
      INPUTS,
      config,
      judgments({ grade: "1" }, { grade: true }, { grade: [1] }),
    );
    expect(outcome).toBe("unresolved");
    expect(reduceKOfN(INPUTS, config, judgments({ grade: 1.0 })).outcome).toBe("accept");
  });

  it("matches `in` by membership in the value list", () => {
    const config: KOfNConfig = {
      field: "verdict",
      accept: { predicate: { op: "in", value: ["accept", "minor_revision"] }, k: 2 },
      reject: { predicate: { op: "in", value: ["reject", null] }, k: 2 },
    };
    const three = judgments({ verdict: "accept" }, { verdict: "minor_revision" }, { verdict: null });
    expect(reduceKOfN(INPUTS, config, three).outcome).toBe("accept");
    const rejecting = judgments({ verdict: null }, { verdict: "reject" }, { verdict: "accept" });
    expect(reduceKOfN(INPUTS, config, rejecting).outcome).toBe("reject");
  });

  it("records a step per response and the counts, so a reader can redo it", () => {
    const reduction = reduceKOfN(INPUTS, TWO, judgments({ verdict: "accept" }, { verdict: "accept" }));
    expect(reduction.steps).toEqual([
      {
        description: 'response of ras_1 has verdict = "accept": matches accept',
        source: "ras_1",
        value: "accept",
      },
      {
        description: 'response of ras_2 has verdict = "accept": matches accept',
        source: "ras_2",
        value: "accept",
      },
      {
        description: '2 of 2 responses match accept (eq "accept"); accept needs 2: holds',
        source: null,
        value: 2,
      },
      {
        description: '0 of 2 responses match reject (eq "reject"); reject needs 1: does not hold',
        source: null,
        value: 0,
      },
      { description: "accept holds and reject does not: accept", source: null, value: "accept" },
    ]);
  });

  it("answers unresolved, and says why, when a config breaking rule 13 lets both hold", () => {
    const broken: KOfNConfig = {
      field: "verdict",
      accept: { predicate: { op: "eq", value: "accept" }, k: 1 },
      reject: { predicate: { op: "eq", value: "reject" }, k: 1 },
    };
    const reduction = reduceKOfN(INPUTS, broken, judgments({ verdict: "accept" }, { verdict: "reject" }));
    expect(reduction.outcome).toBe("unresolved");
    expect(reduction.steps.at(-1)?.description).toMatch(/both hold, which rule 13 rules out/);
  });
});

const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  fc.constantFrom<Scalar>("accept", "reject", "revise", null, true, false),
  fc.integer({ min: -3, max: 3 }),
);

/** A predicate over arbitrary scalars (value sets may overlap: rule 13 need not hold). */
const predicate = fc.oneof(
  scalar.map((value) => ({ op: "eq" as const, value })),
  fc.array(scalar, { minLength: 1, maxLength: 4 }).map((value) => ({ op: "in" as const, value })),
);

const anyConfig: fc.Arbitrary<KOfNConfig> = fc.record({
  field: fc.constantFrom("verdict", "grade"),
  accept: fc.record({ predicate, k: fc.integer({ min: 1, max: 6 }) }),
  reject: fc.record({ predicate, k: fc.integer({ min: 1, max: 6 }) }),
});

const response = fc.oneof(
  fc.record({ verdict: scalar }),
  fc.record({ grade: scalar }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })),
);

const judgmentList = (max: number) =>
  fc
    .array(response, { maxLength: max })
    .map((responses) => responses.map((r, i) => ({ assignment_id: `ras_${i}`, response: r })));

/**
 * A protocol that passed rule 13: `count` reviewers, each k at most the count, accept.k +
 * reject.k > count, accept values from the "yes" side and reject values from the "no" side.
 */
const ruleThirteen = fc
  .integer({ min: 1, max: 8 })
  .chain((count) =>
    fc.integer({ min: 1, max: count }).chain((acceptK) =>
      fc.record({
        count: fc.constant(count),
        config: fc.record({
          field: fc.constant("verdict"),
          accept: fc.record({
            predicate: fc.oneof(
              fc.constantFrom("accept", 1, true).map((value) => ({ op: "eq" as const, value })),
              fc.constant({ op: "in" as const, value: ["accept", 1] }),
            ),
            k: fc.constant(acceptK),
          }),
          reject: fc.record({
            predicate: fc.oneof(
              fc.constantFrom("reject", 0, false, null).map((value) => ({ op: "eq" as const, value })),
              fc.constant({ op: "in" as const, value: ["reject", 0, null] }),
            ),
            k: fc.integer({ min: Math.max(1, count + 1 - acceptK), max: count }),
          }),
        }),
      }),
    ),
  )
  .chain(({ count, config }) => fc.record({ config: fc.constant(config), judgments: judgmentList(count) }));

describe("reduceKOfN properties", () => {
  it("never lets both outcomes hold for a config satisfying rule 13", () => {
    fc.assert(
      fc.property(ruleThirteen, ({ config, judgments }) => {
        const reduction = reduceKOfN(INPUTS, config, judgments);
        const counts = reduction.steps.filter((s) => s.source === null && typeof s.value === "number");
        const [accepts, rejects] = counts.map((s) => s.value as number);
        expect(accepts! >= config.accept.k && rejects! >= config.reject.k).toBe(false);
        expect(reduction.steps.at(-1)?.description).not.toMatch(/both hold/);
      }),
    );
  });

  it("does not depend on the order of the judgments", () => {
    fc.assert(
      fc.property(
        anyConfig,
        judgmentList(8).chain((list) =>
          fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length })),
        ),
        (config, [list, shuffled]) => {
          const a = reduceKOfN(INPUTS, config, list);
          const b = reduceKOfN(INPUTS, config, shuffled);
          expect(b.outcome).toBe(a.outcome);
          expect(b.steps.slice(list.length)).toEqual(a.steps.slice(list.length));
        },
      ),
    );
  });

  it("never turns accept into reject when an accept-matching response is added", () => {
    fc.assert(
      fc.property(anyConfig, judgmentList(8), (config, list) => {
        const before = reduceKOfN(INPUTS, config, list);
        fc.pre(before.outcome === "accept");
        const predicate = config.accept.predicate;
        const value = predicate.op === "eq" ? predicate.value : (predicate.value as Scalar[])[0];
        const more = [...list, { assignment_id: "ras_new", response: { [config.field]: value } }];
        expect(reduceKOfN(INPUTS, config, more).outcome).not.toBe("reject");
      }),
    );
  });

  it("never throws on arbitrary responses and configs", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 10 }),
        fc.anything(),
        fc.anything(),
        fc.array(fc.anything(), { maxLength: 6 }),
        (field, acceptValue, rejectValue, responses) => {
          const config = {
            field,
            accept: { predicate: { op: "in" as const, value: acceptValue }, k: 1 },
            reject: { predicate: { op: "eq" as const, value: rejectValue }, k: 2 },
          };
          const list = responses.map((r, i) => ({
            assignment_id: `ras_${i}`,
            response: r as Record<string, unknown>,
          }));
          const { outcome } = reduceKOfN(INPUTS, config, list);
          expect(["accept", "reject", "unresolved"]).toContain(outcome);
        },
      ),
    );
  });
});
