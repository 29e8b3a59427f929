import * as nodeFs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRepository, type TestRepository } from "../../../test/support/git-repository.ts";
import { findGitPackages, PACKAGE_LIST_MAX_BYTES } from "../../src/tree/find-git-packages.ts";

describe("findGitPackages", () => {
  let root: string;
  let repo: TestRepository;
  let layout: string;
  let listed: string;
  let huge: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "svc-git-packages-"));
    repo = createTestRepository(root, "acme/problems");
    repo.write({
      "a/campaign.json": "{}",
      "a/problems/p/problem.json": "{}",
      "b/problem.json": "not json, and never read during discovery",
    });
    layout = repo.commit("two packages by layout");
    repo.write({ "svc.json": '{"packages": ["b"]}' });
    listed = repo.commit("svc.json lists one");
    repo.write({ "svc.json": `{"packages": ["b"], "pad": "${"x".repeat(PACKAGE_LIST_MAX_BYTES)}"}` });
    huge = repo.commit("an oversized svc.json");
    repo.push("main");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds the outermost package folders of a commit from its paths alone", async () => {
    const source = { fs: nodeFs, gitdir: repo.bare };
    expect(await findGitPackages(source, layout)).toEqual({
      ok: true,
      packages: ["a", "b"],
      source: "layout",
    });
  });

  it("takes the list from svc.json when the commit has one", async () => {
    const source = { fs: nodeFs, gitdir: repo.bare };
    expect(await findGitPackages(source, listed)).toEqual({ ok: true, packages: ["b"], source: "svc.json" });
  });

  it("refuses an svc.json over its ceiling before parsing it, naming the size", async () => {
    const source = { fs: nodeFs, gitdir: repo.bare };
    const found = await findGitPackages(source, huge);
    expect(found.ok).toBe(false);
    expect(found.ok ? null : found.errors[0]).toMatchObject({ file: "svc.json", code: "invalid_json" });
    expect(found.ok ? "" : found.errors[0]!.message).toContain(`at most ${PACKAGE_LIST_MAX_BYTES}`);
  });
});
