import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAssignment } from "../../src/sandbox/parse-assignment.ts";
import { parseDimacs } from "../../src/sandbox/parse-dimacs.ts";
import { parseResultJson } from "../../src/sandbox/parse-result-json.ts";

const cnf = fc.integer({ min: 1, max: 30 }).chain((variables) =>
  fc.record({
    variables: fc.constant(variables),
    clauses: fc.array(
      fc.array(
        fc.integer({ min: 1, max: variables }).chain((v) => fc.constantFrom(v, -v)),
        { minLength: 1, maxLength: 6 },
      ),
      { maxLength: 20 },
    ),
  }),
);

/** Writes a CNF as DIMACS, with comments and clauses split across lines at random. */
function writeDimacs(formula: { variables: number; clauses: number[][] }, splits: boolean[]): string {
  const lines = ["c generated", `p cnf ${formula.variables} ${formula.clauses.length}`];
  for (const [i, clause] of formula.clauses.entries()) {
    if (splits[i % Math.max(1, splits.length)] && clause.length > 1) {
      lines.push(clause.slice(0, 1).join(" "), `${clause.slice(1).join("  ")} 0`);
    } else lines.push(`${clause.join(" ")} 0`);
  }
  return `${lines.join("\n")}\n`;
}

describe("parseDimacs", () => {
  it("reads back every formula it is given, however the clauses are split over lines", () => {
    fc.assert(
      fc.property(cnf, fc.array(fc.boolean()), (formula, splits) => {
        const parsed = parseDimacs(writeDimacs(formula, splits));
        expect(parsed).toEqual({ ok: true, value: formula });
      }),
    );
  });

  it("never throws on arbitrary text, and refuses what lacks a header", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseDimacs(text);
        if (!/^\s*p/m.test(text)) expect(parsed.ok).toBe(false);
      }),
    );
  });

  it("refuses a literal beyond the declared variables", () => {
    fc.assert(
      fc.property(cnf, (formula) => {
        const text = `p cnf ${formula.variables} 1\n${formula.variables + 1} 0\n`;
        expect(parseDimacs(text).ok).toBe(false);
      }),
    );
  });
});

describe("parseAssignment", () => {
  const literals = fc.array(
    fc.integer({ min: 1, max: 1_000_000 }).chain((v) => fc.constantFrom(v, -v)),
    { maxLength: 40 },
  );

  it("reads back the literals in every accepted layout (v lines, terminating 0 or not)", () => {
    fc.assert(
      fc.property(literals, fc.boolean(), fc.boolean(), (values, vLines, zero) => {
        const tokens = [...values.map(String), ...(zero ? ["0"] : [])];
        const text = vLines
          ? tokens.map((t, i) => (i % 5 === 0 ? `\nv ${t}` : ` ${t}`)).join("")
          : tokens.join("\t");
        expect(parseAssignment(text)).toEqual({ ok: true, value: values });
      }),
    );
  });

  it("refuses anything after the terminating 0", () => {
    fc.assert(
      fc.property(literals, fc.integer({ min: 1 }), (values, after) => {
        expect(parseAssignment(`${values.join(" ")} 0 ${after}`).ok).toBe(false);
      }),
    );
  });

  it("never throws on arbitrary text", () => {
    fc.assert(fc.property(fc.string(), (text) => void parseAssignment(text)));
  });
});

describe("parseResultJson", () => {
  const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

  it("accepts the three results with any optional finite score and summary", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("verified", "refuted", "inconclusive"),
        // JSON has no -0: it arrives as 0.
        fc.option(
          fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
          { nil: undefined },
        ),
        fc.option(fc.string(), { nil: undefined }),
        (result, score, summary) => {
          const parsed = parseResultJson(encode({ result, score, summary, extra: 1 }));
          expect(parsed).toEqual({
            ok: true,
            value: { result, score: score ?? null, summary: summary ?? null },
          });
        },
      ),
    );
  });

  it("refuses any other result, error included", () => {
    fc.assert(
      fc.property(
        fc.anything().filter((v) => !["verified", "refuted", "inconclusive"].includes(v as string)),
        (result) => {
          expect(parseResultJson(encode({ result })).ok).toBe(false);
        },
      ),
    );
    expect(parseResultJson(encode({ result: "error" })).ok).toBe(false);
  });

  it("refuses non-numeric scores and non-string summaries", () => {
    expect(parseResultJson(encode({ result: "verified", score: "3" })).ok).toBe(false);
    expect(parseResultJson(encode({ result: "verified", summary: 3 })).ok).toBe(false);
    expect(parseResultJson(new TextEncoder().encode('{"result":"verified","score":1e999}')).ok).toBe(false);
  });

  it("never throws on arbitrary bytes", () => {
    fc.assert(fc.property(fc.uint8Array(), (bytes) => void parseResultJson(bytes)));
  });
});
