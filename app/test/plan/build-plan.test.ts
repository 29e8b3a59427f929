import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lintTree } from "../../src/lint/lint-tree.ts";
import { buildPlan } from "../../src/plan/build-plan.ts";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { planHash } from "../../src/plan/plan-hash.ts";
import { openDirectoryTree } from "../../src/tree/open-directory-tree.ts";

const root = new URL("../fixtures/lint/", import.meta.url).pathname;
const NOW = new Date("2026-11-22T00:00:00Z");
const fixtures = readdirSync(root).filter((name) => !name.endsWith(".json"));
/** A fixture lints clean when it has no expectation file, or one that lists no error (notes never block). */
function clean(name: string): boolean {
  const expectation = join(root, `${name}.expect.json`);
  if (!existsSync(expectation)) return true;
  return (JSON.parse(readFileSync(expectation, "utf8")) as { errors: unknown[] }).errors.length === 0;
}
const VALID = fixtures.filter(clean);
const INVALID = fixtures.filter((name) => !clean(name));

describe("buildPlan", () => {
  it.each(VALID)("plans the clean lint result of %s as lintPackage reports it", async (name) => {
    const tree = await openDirectoryTree(join(root, name));
    const lint = await lintTree(tree, { now: NOW });
    expect(lint.ok).toBe(true);
    if (!lint.ok) return;
    const plan = buildPlan(lint);
    const report = await lintPackage(tree, { now: NOW });
    expect(report.plan).toEqual(plan);
    expect(report.plan_hash).toBe(planHash(plan));
  });

  it("is pure: planning one lint result twice gives the same plan_hash", async () => {
    const lint = await lintTree(await openDirectoryTree(join(root, VALID[0]!)), { now: NOW });
    if (!lint.ok) throw new Error(`${VALID[0]} should lint clean`);
    expect(planHash(buildPlan(lint))).toBe(planHash(buildPlan(lint)));
  });

  it.each(INVALID)("has nothing to plan for %s: lint fails with no checked entries", async (name) => {
    const lint = await lintTree(await openDirectoryTree(join(root, name)), { now: NOW });
    expect(lint).toMatchObject({ ok: false, checked: null });
    expect(lint.errors.length).toBeGreaterThan(0);
    expect(await lintPackage(await openDirectoryTree(join(root, name)), { now: NOW })).toMatchObject({
      ok: false,
      plan: null,
      plan_hash: null,
    });
  });
});
