import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findPackages, memoryTree } from "../../src/tree/index.ts";

const discover = (files: Record<string, string>) => findPackages(memoryTree(files));

describe("findPackages", () => {
  it("takes every campaign folder and every problem folder outside a campaign", async () => {
    expect(
      await discover({
        "README.md": "",
        "campaigns/sat/campaign.json": "{}",
        "campaigns/sat/problems/a/problem.json": "{}",
        "solo/problem.json": "{}",
        "deep/er/still/problem.json": "{}",
        "notes/problem.md": "",
      }),
    ).toEqual({ ok: true, packages: ["campaigns/sat", "deep/er/still", "solo"], source: "layout" });
  });

  it("makes the root the only package when it holds one", async () => {
    expect(await discover({ "problem.json": "{}", "statement.md": "", "x/problem.json": "{}" })).toEqual({
      ok: true,
      packages: ["."],
      source: "layout",
    });
  });

  it("finds none in a repository without package files", async () => {
    expect(await discover({ "README.md": "" })).toEqual({ ok: true, packages: [], source: "layout" });
  });

  it("follows svc.json when the root has one, and only it", async () => {
    expect(
      await discover({
        "svc.json": JSON.stringify({ packages: ["./b/", "a"] }),
        "a/problem.json": "{}",
        "b/campaign.json": "{}",
        "c/problem.json": "{}",
      }),
    ).toEqual({ ok: true, packages: ["a", "b"], source: "svc.json" });
  });

  it.each([
    ["not JSON", "{", "", "invalid_json"],
    ["not an object", "[]", "", "schema_violation"],
    ["an unknown key", '{"packages": ["a"], "pkgs": []}', "/pkgs", "schema_violation"],
    ["no packages", '{"packages": []}', "/packages", "schema_violation"],
    ["a number", '{"packages": ["a", 3]}', "/packages/1", "schema_violation"],
    ["an escaping path", '{"packages": ["../a"]}', "/packages/0", "schema_violation"],
    ["a folder without a package", '{"packages": ["a", "nope"]}', "/packages/1", "not_found"],
    ["a duplicate", '{"packages": ["a", "a/"]}', "/packages/1", "schema_violation"],
    ["nested packages", '{"packages": ["a", "a/b"]}', "/packages/1", "schema_violation"],
    ["the root and another", '{"packages": ["a", "."]}', "/packages/1", "schema_violation"],
  ])("refuses an svc.json with %s at its pointer", async (_name, text, path, code) => {
    const found = await discover({
      "svc.json": text,
      "problem.json": "{}",
      "a/problem.json": "{}",
      "a/b/problem.json": "{}",
    });
    expect(found).toEqual({ ok: false, errors: [expect.objectContaining({ file: "svc.json", path, code })] });
  });

  it("puts every package file in exactly one package, and no package inside another (property)", async () => {
    const segment = fc.constantFrom("a", "b", "a-b", "problems", "x.y", "é");
    const folder = fc.array(segment, { maxLength: 4 }).map((parts) => parts.join("/"));
    const file = fc.tuple(
      folder,
      fc.constantFrom("campaign.json", "problem.json", "statement.md", "notes.txt"),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(file, { selector: ([d, n]) => `${d}/${n}`, maxLength: 12 }),
        async (entries) => {
          const files: Record<string, string> = {};
          for (const [dir, name] of entries) {
            const path = dir === "" ? name : `${dir}/${name}`;
            // A path that is both a file and a folder cannot exist in a tree.
            if (Object.keys(files).some((p) => p.startsWith(`${path}/`) || path.startsWith(`${p}/`)))
              continue;
            files[path] = "";
          }
          const found = await discover(files);
          expect(found.ok).toBe(true);
          if (!found.ok) return;
          const inside = (dir: string, path: string) => dir === "." || path.startsWith(`${dir}/`);
          for (const dir of found.packages) {
            const own = dir === "." ? "" : `${dir}/`;
            expect(`${own}campaign.json` in files || `${own}problem.json` in files).toBe(true);
            for (const other of found.packages)
              if (other !== dir) expect(inside(other, `${dir}/x`)).toBe(false);
          }
          for (const path of Object.keys(files)) {
            if (!path.endsWith("campaign.json") && !path.endsWith("problem.json")) continue;
            expect(found.packages.filter((dir) => inside(dir, path))).toHaveLength(1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
