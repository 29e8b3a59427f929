import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** A repository a test builds with git itself: a bare repository to serve and a work tree to commit in. */
export interface TestRepository {
  /** The bare repository's path, `<root>/<name>.git`. */
  bare: string;
  work: string;
  /** Runs git in the work tree; returns trimmed stdout, throws on failure. */
  git(...args: string[]): string;
  /** Writes files (paths relative to the work tree) and stages them. */
  write(files: Record<string, string>): void;
  /** Removes files or folders and stages the removal. */
  remove(...paths: string[]): void;
  /** Commits what is staged; returns the commit id. */
  commit(message: string): string;
  /** Pushes the current HEAD to a ref of the bare repository (`main`, `refs/pull/1/head`). */
  push(ref: string): void;
}

const IDENTITY = {
  GIT_AUTHOR_NAME: "Ada",
  GIT_AUTHOR_EMAIL: "ada@example.test",
  GIT_COMMITTER_NAME: "Ada",
  GIT_COMMITTER_EMAIL: "ada@example.test",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** Creates `<root>/<name>.git` (bare, default branch main) and a work tree beside it. */
export function createTestRepository(root: string, name: string): TestRepository {
  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}.work`);
  const run = (cwd: string, args: string[]) => {
    const result = spawnSync("git", args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.trim();
  };
  mkdirSync(dirname(bare), { recursive: true });
  run(root, ["init", "--quiet", "--bare", "-b", "main", bare]);
  run(root, ["init", "--quiet", "-b", "main", work]);
  run(work, ["remote", "add", "origin", bare]);
  const git = (...args: string[]) => run(work, args);
  return {
    bare,
    work,
    git,
    write(files) {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), text);
      }
      git("add", "--", ...Object.keys(files));
    },
    remove(...paths) {
      for (const path of paths) rmSync(join(work, path), { recursive: true, force: true });
      git("add", "--all", "--", ...paths);
    },
    commit(message) {
      git("commit", "--quiet", "--allow-empty", "-m", message);
      return git("rev-parse", "HEAD");
    },
    push(ref) {
      git(
        "push",
        "--quiet",
        "--force",
        "origin",
        `HEAD:${ref.startsWith("refs/") ? ref : `refs/heads/${ref}`}`,
      );
    },
  };
}
