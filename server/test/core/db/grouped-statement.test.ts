import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GROUP_LIMIT, groupedStatement, groupedStatementOn } from "../../../src/core/db/grouped-statement.ts";

/** A statement that records each group it is sent and answers each input doubled; "bad" inputs fail their group. */
function recordingStatement() {
  const groups: number[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const send = async (inputs: number[]): Promise<number[]> => {
    groups.push(inputs);
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight -= 1;
    if (inputs.some((input) => input < 0)) throw new Error(`bad input among ${inputs.join(",")}`);
    return inputs.map((input) => input * 2);
  };
  return { groups, send, mostInFlight: () => mostInFlight };
}

describe("groupedStatement", () => {
  it("sends a call alone when nothing else is waiting, and calls made in one turn together, in call order", async () => {
    const statement = recordingStatement();
    const call = groupedStatement(statement.send);
    expect(await call(1)).toBe(2);
    expect(await Promise.all([call(3), call(4), call(5)])).toEqual([6, 8, 10]);
    expect(statement.groups).toEqual([[1], [3, 4, 5]]);
  });

  it("groups the calls made while a statement is in flight into the next one, one statement in flight at a time", async () => {
    const statement = recordingStatement();
    const call = groupedStatement(statement.send);
    const first = call(1);
    await new Promise((resolve) => setImmediate(resolve));
    // The first statement is in flight now: these wait for it and then go together.
    const later = [call(2), call(3), call(4)];
    expect(await first).toBe(2);
    expect(await Promise.all(later)).toEqual([4, 6, 8]);
    expect(statement.groups).toEqual([[1], [2, 3, 4]]);
    expect(statement.mostInFlight()).toBe(1);
  });

  it(`sends at most ${GROUP_LIMIT} calls in one statement`, async () => {
    const statement = recordingStatement();
    const call = groupedStatement(statement.send);
    const inputs = Array.from({ length: GROUP_LIMIT * 2 + 3 }, (_, i) => i);
    expect(await Promise.all(inputs.map(call))).toEqual(inputs.map((input) => input * 2));
    expect(statement.groups.map((group) => group.length)).toEqual([GROUP_LIMIT, GROUP_LIMIT, 3]);
  });

  it("sends a failed group again one call at a time, so only the bad input's call fails", async () => {
    const statement = recordingStatement();
    const call = groupedStatement(statement.send);
    const results = await Promise.allSettled([call(1), call(-1), call(2)]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[0] as PromiseFulfilledResult<number>).value).toBe(2);
    expect((results[2] as PromiseFulfilledResult<number>).value).toBe(4);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain("bad input among -1");
    expect(statement.groups).toEqual([[1, -1, 2], [1], [-1], [2]]);
    // And it goes on grouping afterwards.
    expect(await Promise.all([call(7), call(8)])).toEqual([14, 16]);
    expect(statement.groups.at(-1)).toEqual([7, 8]);
  });

  it("refuses a statement that answers a different number of outputs than it was given inputs", async () => {
    const call = groupedStatement(async (inputs: number[]) => inputs.slice(1));
    await expect(call(1)).rejects.toThrow("returned 0 outputs for 1 inputs");
  });

  it("never groups calls made on different pools", async () => {
    const groups: Array<{ pool: string; inputs: number[] }> = [];
    const call = groupedStatementOn(async (pool: { name: string }, inputs: number[]) => {
      groups.push({ pool: pool.name, inputs });
      return inputs;
    });
    const a = { name: "a" };
    const b = { name: "b" };
    await Promise.all([call(a, 1), call(b, 2), call(a, 3)]);
    expect(groups).toEqual([
      { pool: "a", inputs: [1, 3] },
      { pool: "b", inputs: [2] },
    ]);
  });

  it("answers every call with its own input's output, or fails it when and only when its input is bad, whatever the timing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ input: fc.integer({ min: -3, max: 1000 }), turnsBefore: fc.nat(3) }), {
          maxLength: 150,
        }),
        async (calls) => {
          const statement = recordingStatement();
          const call = groupedStatement(statement.send);
          const pending: Array<Promise<number>> = [];
          for (const { input, turnsBefore } of calls) {
            for (let turn = 0; turn < turnsBefore; turn++)
              await new Promise((resolve) => setImmediate(resolve));
            pending.push(call(input));
          }
          const results = await Promise.allSettled(pending);
          for (const [i, result] of results.entries()) {
            const { input } = calls[i]!;
            if (input < 0) expect(result.status).toBe("rejected");
            else expect(result).toEqual({ status: "fulfilled", value: input * 2 });
          }
          expect(statement.mostInFlight()).toBeLessThanOrEqual(1);
          for (const group of statement.groups) expect(group.length).toBeLessThanOrEqual(GROUP_LIMIT);
        },
      ),
      { numRuns: 40 },
    );
  });
});
