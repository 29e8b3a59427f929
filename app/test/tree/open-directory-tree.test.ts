import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDirectoryTree } from "../../src/tree/index.ts";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "svc-dir-tree-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

describe("openDirectoryTree", () => {
  it("lists regular files in byte order with their sizes and reads them lazily", async () => {
    await put({ "b.md": "bee", "a/z.json": "{}", "a.md": "a", "Z.txt": "zz" });
    const tree = await openDirectoryTree(root);
    // '.' (0x2E) sorts before '/' (0x2F), so "a.md" precedes "a/z.json"; upper case comes first.
    expect(tree.paths()).toEqual(["Z.txt", "a.md", "a/z.json", "b.md"]);
    expect(tree.size("b.md")).toBe(3);
    await writeFile(join(root, "b.md"), "changed");
    expect(new TextDecoder().decode(await tree.read("b.md"))).toBe("changed");
  });

  it("keeps the first size it gives: stat'ed before a read, the length read after one", async () => {
    await put({ "a.md": "one", "b.md": "two" });
    const tree = await openDirectoryTree(root);
    expect(tree.size("a.md")).toBe(3);
    await writeFile(join(root, "a.md"), "longer");
    await writeFile(join(root, "b.md"), "longer");
    expect(tree.size("a.md")).toBe(3);
    expect((await tree.read("b.md")).byteLength).toBe(6);
    expect(tree.size("b.md")).toBe(6);
    expect(tree.size("c.md")).toBeUndefined();
  });

  it("reports a file removed after the walk as not_found when its size is asked", async () => {
    await put({ "a.md": "one" });
    const tree = await openDirectoryTree(root);
    await rm(join(root, "a.md"));
    expect(() => tree.size("a.md")).toThrow(expect.objectContaining({ code: "not_found", entry: "a.md" }));
  });

  it("skips .svc/ at the root and .git at any depth, but lists a nested .svc/", async () => {
    await put({
      "problem.json": "{}",
      ".svc/upload.json": "{}",
      ".git/HEAD": "ref",
      "sub/.git": "gitdir: ../.git/modules/sub",
      "sub/.svc/kept.txt": "kept",
    });
    const tree = await openDirectoryTree(root);
    expect(tree.paths()).toEqual(["problem.json", "sub/.svc/kept.txt"]);
    await expect(tree.read(".svc/upload.json")).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses a symlink inside the package, naming it", async () => {
    await put({ "problem.json": "{}" });
    await mkdir(join(root, "skills"));
    await symlink("/etc/passwd", join(root, "skills/leak.md"));
    await expect(openDirectoryTree(root)).rejects.toMatchObject({
      code: "symlink",
      entry: "skills/leak.md",
      message: expect.stringContaining('"skills/leak.md"'),
    });
  });

  it("refuses a symlink to a folder inside the package", async () => {
    await put({ "real/a.txt": "a" });
    await symlink(join(root, "real"), join(root, "alias"));
    await expect(openDirectoryTree(root)).rejects.toMatchObject({ code: "symlink", entry: "alias" });
  });

  it("opens a package directory reached through a symlink", async () => {
    await put({ "pkg/problem.json": "{}" });
    await symlink(join(root, "pkg"), join(root, "link"));
    expect((await openDirectoryTree(join(root, "link"))).paths()).toEqual(["problem.json"]);
  });

  it("refuses reading a file that became a symlink after opening", async () => {
    // 1. open the tree while the file is regular
    await put({ "a.txt": "a" });
    const tree = await openDirectoryTree(root);
    // 2. swap it for a link
    await rm(join(root, "a.txt"));
    await symlink("/etc/passwd", join(root, "a.txt"));
    // 3. the read does not follow it
    await expect(tree.read("a.txt")).rejects.toMatchObject({ code: "symlink" });
  });

  it("gives not_found for a missing directory and not_a_directory for a file", async () => {
    await put({ "file.txt": "x" });
    await expect(openDirectoryTree(join(root, "missing"))).rejects.toMatchObject({ code: "not_found" });
    await expect(openDirectoryTree(join(root, "file.txt"))).rejects.toMatchObject({
      code: "not_a_directory",
    });
  });

  it("refuses file names no archive could carry safely", async () => {
    await put({ "a\\b.txt": "x" });
    await expect(openDirectoryTree(root)).rejects.toMatchObject({ code: "unsafe_path", entry: "a\\b.txt" });
  });

  it("refuses two files whose names differ only in Unicode normalisation", async () => {
    await put({ "caf\u00e9.md": "nfc", "cafe\u0301.md": "nfd" });
    await expect(openDirectoryTree(root)).rejects.toMatchObject({ code: "duplicate_entry" });
  });
});
