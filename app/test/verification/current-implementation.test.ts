import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ConformanceStatus,
  currentImplementation,
  currentImplementations,
} from "../../src/verification/current-implementation.ts";

const impl = (version_number: number, status: ConformanceStatus, yanked = false, stage_key = "check") => ({
  id: `v${version_number}`,
  stage_key,
  version_number,
  yanked_at: yanked ? "2026-01-01T00:00:00.000Z" : null,
  conformance: { status },
});

/** A stage's implementations: distinct version numbers, any status, some yanked, in any order. */
const implementations = fc
  .uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 12 })
  .chain((versions) =>
    fc.tuple(
      ...versions.map((version) =>
        fc.record({
          version: fc.constant(version),
          status: fc.constantFrom<ConformanceStatus>("pending", "passed", "failed"),
          yanked: fc.boolean(),
        }),
      ),
    ),
  )
  .map((items) => items.map((item) => impl(item.version, item.status, item.yanked)));

describe("currentImplementation", () => {
  it("is the highest non-yanked version whose conformance passed", () => {
    const choice = currentImplementation([
      impl(1, "passed"),
      impl(2, "passed"),
      impl(3, "failed"),
      impl(4, "passed", true),
      impl(5, "pending"),
    ]);
    expect(choice.current?.id).toBe("v2");
    expect(choice.pending?.id).toBe("v5");
  });

  it("never picks a pending or failed implementation, even when it is the only one", () => {
    expect(currentImplementation([impl(1, "pending")])).toEqual({
      current: null,
      pending: impl(1, "pending"),
    });
    expect(currentImplementation([impl(1, "failed")])).toEqual({ current: null, pending: null });
    expect(currentImplementation([])).toEqual({ current: null, pending: null });
  });

  it("waits for nothing older than the current one, and for no yanked pending one", () => {
    expect(currentImplementation([impl(1, "pending"), impl(2, "passed")]).pending).toBeNull();
    expect(currentImplementation([impl(1, "passed"), impl(2, "pending", true)]).pending).toBeNull();
  });

  it("property: current passed, is not yanked, and no eligible version is higher", () => {
    fc.assert(
      fc.property(implementations, (list) => {
        const { current } = currentImplementation(list);
        const eligible = list.filter((i) => i.yanked_at === null && i.conformance.status === "passed");
        if (eligible.length === 0) return current === null;
        return (
          current !== null &&
          current.conformance.status === "passed" &&
          current.yanked_at === null &&
          eligible.every((i) => i.version_number <= current.version_number)
        );
      }),
    );
  });

  it("property: pending is the highest live pending version above current, and order does not matter", () => {
    fc.assert(
      fc.property(implementations, fc.integer(), (list, seed) => {
        const choice = currentImplementation(list);
        const floor = choice.current?.version_number ?? 0;
        const waiting = list.filter(
          (i) => i.yanked_at === null && i.conformance.status === "pending" && i.version_number > floor,
        );
        const expected = waiting.sort((a, b) => b.version_number - a.version_number)[0] ?? null;
        const shuffled = [...list].sort(
          (a, b) => ((a.version_number * 7919 + seed) % 13) - ((b.version_number * 7919 + seed) % 13),
        );
        return choice.pending === expected && currentImplementation(shuffled).current === choice.current;
      }),
    );
  });

  it("chooses per stage", () => {
    const choices = currentImplementations([
      impl(1, "passed", false, "a"),
      impl(1, "failed", false, "b"),
      impl(2, "passed", false, "a"),
    ]);
    expect(choices.get("a")?.current?.version_number).toBe(2);
    expect(choices.get("b")).toEqual({ current: null, pending: null });
  });
});
