import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { openDirectoryTree } from "../../src/tree/open-directory-tree.ts";

const VALID = new URL("../fixtures/lint/valid-campaign/", import.meta.url).pathname;

let root: string;
/** valid-campaign with its one problem copied twice more: three problems share its contract. */
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-campaign-fixtures-"));
  cpSync(VALID, root, { recursive: true });
  for (const slug of ["integer-root-2", "integer-root-3"]) {
    const dir = join(root, "problems", slug);
    cpSync(join(root, "problems/integer-root"), dir, { recursive: true });
    const problem = JSON.parse(readFileSync(join(dir, "problem.json"), "utf8"));
    writeFileSync(join(dir, "problem.json"), JSON.stringify({ ...problem, slug }));
  }
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a campaign's contract fixtures, checked for each problem", () => {
  it("1. all in the campaign's fixtures/: lint is clean", async () => {
    expect((await lintPackage(await openDirectoryTree(root))).errors).toEqual([]);
  });

  it("2. one only in the first problem's reference/: each other problem is told, naming its own folder", async () => {
    mkdirSync(join(root, "problems/integer-root/reference"));
    renameSync(
      join(root, "fixtures/right-answer.txt"),
      join(root, "problems/integer-root/reference/right-answer.txt"),
    );
    const { errors } = await lintPackage(await openDirectoryTree(root));
    expect(errors.filter((e) => e.code === "not_found").map((e) => e.message)).toEqual([
      expect.stringContaining("problems/integer-root-2/reference/"),
      expect.stringContaining("problems/integer-root-3/reference/"),
    ]);
  });
});
