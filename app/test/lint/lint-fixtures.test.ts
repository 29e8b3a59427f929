import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkSchema } from "@svc/schemas";
import { describe, expect, it } from "vitest";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { openDirectoryTree } from "../../src/tree/open-directory-tree.ts";

/**
 * Every folder in fixtures/lint/ is a package named after what it breaks, with an
 * `<name>.expect.json` listing exactly the errors (code, rule, file, path) and notes it must give.
 */
const root = new URL("../fixtures/lint/", import.meta.url).pathname;
const NOW = new Date("2026-11-22T00:00:00Z");

interface Expected {
  errors: Array<{ code: string; file: string; path: string; rule?: number }>;
  notes: Array<{ code: string; file: string; path: string }>;
}

const cases = readdirSync(root)
  .filter((name) => name.endsWith(".expect.json"))
  .map((name) => name.slice(0, -".expect.json".length))
  .sort();

const key = (r: { code: string; file: string; path: string; rule?: number }) =>
  JSON.stringify([r.file, r.path, r.code, r.rule ?? null]);

describe("lint fixtures", () => {
  it("has a fixture for every lint error code", () => {
    const codes = new Set(
      cases.flatMap((name) =>
        (JSON.parse(readFileSync(join(root, `${name}.expect.json`), "utf8")) as Expected).errors.map(
          (e) => e.code,
        ),
      ),
    );
    expect([...codes].sort()).toEqual(
      [
        "binding_error",
        "hash_mismatch",
        "invalid_json",
        "missing_file",
        "not_found",
        "rule_violation",
        "schema_violation",
        "unknown_file",
        "unsupported_runtime",
      ].sort(),
    );
  });

  it.each(cases)("%s gives exactly its expected records", async (name) => {
    const expected = JSON.parse(readFileSync(join(root, `${name}.expect.json`), "utf8")) as Expected;
    const result = await lintPackage(await openDirectoryTree(join(root, name)), { now: NOW });
    expect(result.errors.map(key).sort()).toEqual(expected.errors.map(key).sort());
    expect(result.notes.map(key).sort()).toEqual(expected.notes.map(key).sort());
    expect(result.ok).toBe(expected.errors.length === 0);
    if (result.ok) {
      expect(result.plan_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(checkSchema("plan", result.plan).issues).toEqual([]);
    }
    for (const error of result.errors) {
      expect(error.message.length).toBeGreaterThan(20);
      expect(checkSchema("lint-record", error).issues).toEqual([]);
    }
  });
});
