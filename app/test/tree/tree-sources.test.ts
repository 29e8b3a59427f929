import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FileTree, openDirectoryTree, openZipTree, zipTree } from "../../src/tree/index.ts";
import { type RawEntry, rawZip } from "./raw-zip.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/lint/valid-review", import.meta.url));
let root: string;

async function snapshot(tree: FileTree): Promise<Array<[string, number | undefined, string]>> {
  const out: Array<[string, number | undefined, string]> = [];
  for (const path of tree.paths()) {
    out.push([path, tree.size(path), Buffer.from(await tree.read(path)).toString("base64")]);
  }
  return out;
}

/** Zips every file and folder on disk, .svc/ and .git/ included, the way `zip -r` would. */
async function zipEverything(dir: string): Promise<Buffer> {
  const entries: RawEntry[] = [];
  for (const item of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = relative(dir, join(item.parentPath, item.name)).split("\\").join("/");
    if (item.isDirectory()) entries.push({ name: `${path}/`, mode: 0o40755 });
    else entries.push({ name: path, data: await readFile(join(dir, path)), deflate: true });
  }
  return rawZip(entries);
}

beforeAll(async () => {
  // 1. a real package: the lint fixture, plus nested files and CLI and Git state
  root = await mkdtemp(join(tmpdir(), "svc-sources-"));
  await cp(FIXTURE, root, { recursive: true });
  await mkdir(join(root, ".svc"));
  await writeFile(join(root, ".svc/upload.json"), '{"upload_id":"u"}');
  await mkdir(join(root, ".git"));
  await writeFile(join(root, ".git/HEAD"), "ref: refs/heads/main\n");
  await mkdir(join(root, "fixtures/inputs"), { recursive: true });
  await writeFile(join(root, "fixtures/inputs/instance.cnf"), "p cnf 1 1\n1 0\n");
  await writeFile(join(root, "fixtures/empty.txt"), "");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("a directory and a zip of the same package", () => {
  it("list the same paths, sizes and bytes, ignoring .svc/ and .git in both", async () => {
    // 2. open the directory and a zip -r style archive of everything on disk
    const fromDirectory = await openDirectoryTree(root);
    const fromZip = await openZipTree(await zipEverything(root));
    // 3. the two views agree and leave the state directories out
    expect(fromZip.paths()).toEqual(fromDirectory.paths());
    expect(await snapshot(fromZip)).toEqual(await snapshot(fromDirectory));
    expect(fromDirectory.paths()).toContain("problem.json");
    expect(fromDirectory.paths().some((path) => path.startsWith(".svc/") || path.startsWith(".git/"))).toBe(
      false,
    );
  });

  it("pack into byte-identical archives from the directory, twice, that reopen as the same tree", async () => {
    const fromDirectory = await openDirectoryTree(root);
    const first = await zipTree(fromDirectory);
    const second = await zipTree(await openDirectoryTree(root));
    expect(first.equals(second)).toBe(true);
    expect(await snapshot(await openZipTree(first))).toEqual(await snapshot(fromDirectory));
  });
});
