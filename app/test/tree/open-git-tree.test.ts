import * as nodeFs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GitHttpServer, startGitHttpServer } from "../../../test/support/git-http-server.ts";
import { createTestRepository, type TestRepository } from "../../../test/support/git-repository.ts";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { fetchGitCommit } from "../../src/tree/fetch-git-commit.ts";
import { listGitFiles, openDirectoryTree, openGitTree, TreeError } from "../../src/tree/index.ts";
import { campaignFiles } from "../client/support/campaign-files.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("openGitTree", () => {
  let root: string;
  let repo: TestRepository;
  let first: string;
  let second: string;
  let server: GitHttpServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "svc-git-tree-"));
    repo = createTestRepository(root, "acme/problems");
    repo.write({
      ...Object.fromEntries(Object.entries(campaignFiles(3)).map(([p, t]) => [`campaigns/c/${p}`, t])),
      "README.md": "# Problems\n",
      "campaigns/c/.svc/upload.json": "{}",
    });
    first = repo.commit("three problems");
    repo.write({ "README.md": "# Problems, edited\n" });
    repo.remove("campaigns/c/problems/d-1");
    second = repo.commit("one problem less");
    repo.push("main");
    server = await startGitHttpServer({
      root,
      authorize: (user, pass) => user === "x-access-token" && pass === "t0k",
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("reads any commit of a repository without a working copy, each folder as its own tree", async () => {
    const source = { fs: nodeFs, gitdir: repo.bare };
    const whole = await openGitTree(source, first);
    expect(whole.paths()).toContain("campaigns/c/problems/d-1/problem.json");
    expect(text(await whole.read("README.md"))).toBe("# Problems\n");
    expect(whole.size("README.md")).toBe(11);

    const later = await openGitTree(source, "main");
    expect(later.paths()).not.toContain("campaigns/c/problems/d-1/problem.json");
    expect(text(await later.read("README.md"))).toBe("# Problems, edited\n");
    expect(later.paths()).toEqual([...later.paths()].sort());

    const pkg = await openGitTree(source, first, { root: "campaigns/c" });
    expect(pkg.paths()).toContain("campaign.json");
    // `.svc/` at the package root is local CLI state and never part of a package.
    expect(pkg.paths().some((p) => p.startsWith(".svc"))).toBe(false);
    await expect(pkg.read("README.md")).rejects.toMatchObject({ code: "not_found" });
    expect(second).not.toBe(first);
  });

  it("plans a package read from a commit exactly as the same files read from a directory", async () => {
    const fromGit = await lintPackage(
      await openGitTree({ fs: nodeFs, gitdir: repo.bare }, second, { root: "campaigns/c" }),
    );
    const fromDir = await lintPackage(await openDirectoryTree(join(repo.work, "campaigns/c")));
    expect(fromGit.ok).toBe(true);
    expect(fromGit.plan_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fromGit.plan_hash).toBe(fromDir.plan_hash);
  });

  it("lists files by walking tree objects and refuses a folder the commit lacks", async () => {
    const files = await listGitFiles({ fs: nodeFs, gitdir: repo.bare }, first);
    expect(files.map((f) => f.path)).toContain("README.md");
    expect(files.every((f) => /^[0-9a-f]{40}$/.test(f.oid))).toBe(true);
    await expect(
      openGitTree({ fs: nodeFs, gitdir: repo.bare }, first, { root: "nope" }),
    ).rejects.toBeInstanceOf(TreeError);
  });

  it("refuses a symbolic link inside a package and a package over the file ceiling", async () => {
    const other = createTestRepository(root, "acme/links");
    other.write({ "pkg/problem.json": "{}", "elsewhere.md": "x" });
    nodeFs.symlinkSync("../elsewhere.md", join(other.work, "pkg/statement.md"));
    other.git("add", "pkg/statement.md");
    const sha = other.commit("a link");
    const source = { fs: nodeFs, gitdir: join(other.work, ".git") };
    await expect(openGitTree(source, sha, { root: "pkg" })).rejects.toMatchObject({
      code: "symlink",
      entry: "statement.md",
    });
    await expect(
      openGitTree(source, sha, { limits: { maxFiles: 1, maxUnpackedBytes: 1000 } }),
    ).rejects.toMatchObject({ code: "too_many_files" });
  });

  it("fetches one commit over smart HTTP into memory with the token, shallow", async () => {
    const url = `${server.url}/acme/problems.git`;
    const fetched = await fetchGitCommit({ url, ref: "main", commit: second, token: "t0k" });
    expect(fetched.commit).toBe(second);
    const tree = await openGitTree(fetched.source, fetched.commit, { root: "campaigns/c" });
    const fromDisk = await openGitTree({ fs: nodeFs, gitdir: repo.bare }, second, { root: "campaigns/c" });
    expect(tree.paths()).toEqual(fromDisk.paths());
    // Shallow: the parent commit was not fetched.
    await expect(openGitTree(fetched.source, first)).rejects.toBeInstanceOf(TreeError);
    expect(server.requests.some((r) => r.user === "x-access-token" && r.status === 200)).toBe(true);
  });

  it("fetches deeper once when the ref has moved past the wanted commit", async () => {
    const url = `${server.url}/acme/problems.git`;
    const fetched = await fetchGitCommit({ url, ref: "main", commit: first, token: "t0k" });
    const tree = await openGitTree(fetched.source, fetched.commit);
    expect(text(await tree.read("README.md"))).toBe("# Problems\n");
    await expect(fetchGitCommit({ url, ref: "main", commit: "0".repeat(40), token: "t0k" })).rejects.toThrow(
      /is not among the last 50 commits/,
    );
  });

  it("fails with a refused token and never asks twice", async () => {
    const before = server.requests.length;
    await expect(
      fetchGitCommit({ url: `${server.url}/acme/problems.git`, ref: "main", token: "wrong" }),
    ).rejects.toThrow();
    expect(server.requests.length - before).toBeLessThanOrEqual(2);
  });
});
