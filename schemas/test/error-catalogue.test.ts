import { describe, expect, it } from "vitest";
import {
  BlobRefusalCode,
  BlobRefusals,
  ErrorCatalogue,
  LintCode,
  LintErrors,
  LintNotes,
  NoteCode,
  TransportCode,
  TransportFailures,
  TreeErrorCode,
  TreeErrors,
} from "../src/index.ts";

describe("the error catalogue", () => {
  it.each(Object.entries(ErrorCatalogue))(
    "gives every %s code a snake_case name and a meaning",
    (_family, codes) => {
      for (const [code, entry] of Object.entries(codes)) {
        expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
        expect(entry.meaning.length, code).toBeGreaterThan(0);
      }
    },
  );

  it("gives every service code an HTTP error status", () => {
    for (const [code, entry] of Object.entries(ErrorCatalogue.service)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
    }
  });

  it.each([
    ["LintCode", LintCode, LintErrors],
    ["NoteCode", NoteCode, LintNotes],
    ["TreeErrorCode", TreeErrorCode, TreeErrors],
    ["TransportCode", TransportCode, TransportFailures],
  ] as const)("derives %s from its family: each code names itself", (_name, codes, family) => {
    expect(Object.keys(codes)).toEqual(Object.keys(family));
    for (const [key, value] of Object.entries(codes)) expect(value).toBe(key);
  });

  it("maps each blob refusal reason to exactly one catalogued blob code", () => {
    expect(Object.values(BlobRefusalCode).sort()).toEqual(Object.keys(BlobRefusals).sort());
  });

  it("keeps the lint codes of spec section 7", () => {
    expect(Object.values(LintCode)).toEqual([
      "missing_file",
      "invalid_json",
      "schema_violation",
      "rule_violation",
      "not_found",
      "binding_error",
      "unsupported_runtime",
      "hash_mismatch",
      "unknown_file",
    ]);
  });
});
