import { describe, expect, it } from "vitest";
import {
  CheckerResult,
  LintCode,
  ReconciliationAction,
  ResultKind,
  RunResult,
  RunStatus,
  type SchemaName,
  StageKind,
  Structure,
  schemaDocument,
} from "../src/index.ts";

/** Resolves an unescaped JSON Pointer inside a schema document. */
function at(name: SchemaName, pointer: string): unknown {
  let node: unknown = schemaDocument(name);
  for (const segment of pointer.split("/").slice(1)) node = (node as Record<string, unknown>)[segment];
  return node;
}

/** Every schema enum a code enum mirrors; `null` members of nullable enums are not part of the set. */
const holders: Array<[string, Record<string, string>, Array<[SchemaName, string]>]> = [
  [
    "Structure",
    Structure,
    [
      ["problem", "/properties/structure/enum"],
      ["plan", "/$defs/problem/properties/structure/enum"],
    ],
  ],
  [
    "StageKind",
    StageKind,
    [
      ["verifier-contract", "/$defs/stage/properties/kind/enum"],
      ["verification-run", "/$defs/stage_result/properties/kind/enum"],
    ],
  ],
  [
    "ResultKind",
    ResultKind,
    [
      ["verifier-contract", "/properties/result_kind/enum"],
      ["verifier-contract", "/$defs/stage/properties/result_kind/enum"],
    ],
  ],
  [
    "RunResult",
    RunResult,
    [
      ["verification-run", "/properties/result/enum"],
      ["verification-run", "/$defs/stage_result/properties/result/enum"],
      [
        "verifier-implementation",
        "/$defs/conformance/properties/failures/items/properties/actual_result/enum",
      ],
    ],
  ],
  [
    "CheckerResult",
    CheckerResult,
    [
      ["verifier-contract", "/$defs/conformance_fixture/properties/expected_result/enum"],
      [
        "verifier-implementation",
        "/$defs/conformance/properties/failures/items/properties/expected_result/enum",
      ],
    ],
  ],
  [
    "RunStatus",
    RunStatus,
    [
      ["verification-run", "/properties/status/enum"],
      ["verification-run", "/$defs/stage_result/properties/status/enum"],
    ],
  ],
  ["LintCode", LintCode, [["lint-record", "/properties/code/enum"]]],
];

describe("closed enums", () => {
  it.each(holders)("%s agrees with every schema enum that holds it", (_name, values, pointers) => {
    for (const [schema, pointer] of pointers) {
      const schemaValues = (at(schema, pointer) as unknown[]).filter((value) => value !== null);
      expect(schemaValues, `${schema}#${pointer}`).toEqual(Object.values(values));
    }
  });

  it.each(holders)("%s maps each name to itself", (_name, values) => {
    for (const [key, value] of Object.entries(values)) expect(value).toBe(key);
  });

  it("ReconciliationAction lists the actions of spec section 3 (no schema holds it)", () => {
    expect(Object.values(ReconciliationAction)).toEqual(["create", "update", "revise", "noop", "conflict"]);
  });
});
