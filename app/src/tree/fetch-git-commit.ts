import git, { type HttpClient } from "isomorphic-git";
import nodeHttp from "isomorphic-git/http/node";
import { createMemoryFs } from "./memory-fs.ts";
import type { GitSource } from "./open-git-tree.ts";

export interface FetchGitCommitOptions {
  /** The repository's clone URL (https in production; any smart-HTTP server works). */
  url: string;
  /** The ref to fetch: a branch name, or a full ref such as `refs/pull/7/head`. */
  ref: string;
  /** The commit wanted. When the ref has moved past it, a deeper fetch looks for it. */
  commit?: string;
  /** A GitHub installation token, sent as `x-access-token:<token>` when the server asks. */
  token?: string;
  /** isomorphic-git's HTTP client; node's by default. */
  http?: HttpClient;
}

/** How many commits a second fetch looks back when the ref has moved past the wanted commit. */
const DEEPEN_TO = 50;

/**
 * Fetches one commit of a remote repository into memory, shallow (`depth: 1`, that ref only, no
 * tags), and returns it as a GitSource for openGitTree. Nothing touches the disk. Smart-HTTP
 * servers serve refs, not arbitrary commits, so the ref is fetched; if it now points past
 * `commit` (a push landed meanwhile), the last 50 commits are fetched once more to find it.
 * Rejects when the commit cannot be found.
 */
export async function fetchGitCommit(
  options: FetchGitCommitOptions,
): Promise<{ source: GitSource; commit: string }> {
  const fs = createMemoryFs();
  const gitdir = "/repository.git";
  const cache = {};
  await git.init({ fs, gitdir, bare: true, defaultBranch: "main" });
  await git.addRemote({ fs, gitdir, remote: "origin", url: options.url });
  const fetchAt = (depth: number) =>
    git.fetch({
      fs,
      http: options.http ?? nodeHttp,
      gitdir,
      cache,
      remote: "origin",
      ref: options.ref,
      singleBranch: true,
      tags: false,
      depth,
      onAuth: options.token ? () => ({ username: "x-access-token", password: options.token }) : undefined,
      // A refused token is final: asking again with the same one would loop.
      onAuthFailure: () => ({ cancel: true }),
    });
  const fetched = await fetchAt(1);
  const head = fetched.fetchHead;
  if (head === null) throw new Error(`${options.url} has no ref ${options.ref}`);
  const wanted = options.commit ?? head;
  const source: GitSource = { fs, gitdir, cache };
  if (wanted === head || (await hasCommit(source, wanted))) return { source, commit: wanted };
  await fetchAt(DEEPEN_TO);
  if (await hasCommit(source, wanted)) return { source, commit: wanted };
  throw new Error(
    `commit ${wanted} is not among the last ${DEEPEN_TO} commits of ${options.ref} at ${options.url}`,
  );
}

async function hasCommit(source: GitSource, oid: string): Promise<boolean> {
  try {
    await git.readCommit({ fs: source.fs as never, gitdir: source.gitdir, oid, cache: source.cache });
    return true;
  } catch {
    return false;
  }
}
