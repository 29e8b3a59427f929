import { InvalidArgumentError } from "commander";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkedBy } from "../../../src/edges/cli/operator-arguments.ts";
import { humanAge } from "../../../src/edges/cli/stuck-work-table.ts";
import {
  reasonMd,
  redactionReason,
  verifierImplementationId,
} from "../../../src/edges/inputs/verification-inputs.ts";

/** The shell's argument parsers refuse exactly what the tools' input fields refuse. */
describe("operator command arguments", () => {
  it("a --reason is accepted as given when it has 1 to 10000 characters, refused as usage otherwise", () => {
    const parse = checkedBy(reasonMd);
    fc.assert(
      fc.property(fc.string({ maxLength: 10_050, unit: "grapheme-ascii" }), (text) => {
        if (text.length >= 1 && text.length <= 10_000) expect(parse(text)).toBe(text);
        else expect(() => parse(text)).toThrow(InvalidArgumentError);
      }),
      { numRuns: 200 },
    );
    expect(() => parse("")).toThrow("must say why");
    expect(parse("x".repeat(10_000))).toHaveLength(10_000);
    expect(() => parse("x".repeat(10_001))).toThrow("must be at most 10000 characters");
  });

  it("an implementation id is accepted exactly when the tool accepts it", () => {
    const parse = checkedBy(verifierImplementationId);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^vfi_[0-9a-z]{10,32}$/)), (text) => {
        const accepted = verifierImplementationId.safeParse(text).success;
        if (accepted) expect(parse(text)).toBe(text);
        else expect(() => parse(text)).toThrow(/must be a VerifierImplementation id/);
      }),
    );
  });

  it("a redaction reason is one of the three, else refused naming them", () => {
    expect(checkedBy(redactionReason)("personal_data")).toBe("personal_data");
    expect(() => checkedBy(redactionReason)("gdpr")).toThrow(
      "must be secret_material, personal_data or legal_requirement",
    );
  });
});

describe("ages in the stuck-work tables", () => {
  const UNITS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };

  it("read back to at most the age, short of it by less than the second unit shown", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 365 * 86_400 }), (seconds) => {
        const text = humanAge(seconds);
        const parts = text
          .split(" ")
          .map((part) => ({ count: Number(part.slice(0, -1)), unit: part.at(-1)! }));
        expect(parts.length).toBeLessThanOrEqual(2);
        const total = parts.reduce((sum, part) => sum + part.count * UNITS[part.unit]!, 0);
        expect(total).toBeLessThanOrEqual(seconds);
        expect(seconds - total).toBeLessThan(UNITS[parts.at(-1)!.unit]!);
      }),
    );
  });
});
