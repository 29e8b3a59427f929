/** The commit an event asks the App to check, and where to fetch it from. */
export interface CommitTarget {
  owner: string;
  repo: string;
  /** The repository's clone URL from the payload (https on GitHub). */
  cloneUrl: string;
  /** The repository's web address, for links in reports. */
  htmlUrl: string;
  /** The ref to fetch: the branch, or `refs/pull/<n>/head` for a pull request (forks included). */
  ref: string;
  sha: string;
  /** The commit was pushed to the repository's default branch: it is published. */
  onDefaultBranch: boolean;
}

interface RepositoryPayload {
  name: string;
  owner: { login: string };
  clone_url: string;
  html_url: string;
  default_branch?: string;
}

const ZERO_SHA = /^0{40}$/;

/**
 * Reads the commit to check from a webhook payload: `pull_request` (the head, fetched through
 * the base repository's `refs/pull/<n>/head`), `push` (the pushed branch's new head; deletions and
 * tags are not checked), `check_suite` and `check_run` (their head commit). Null when there is
 * nothing to check.
 */
export function commitTarget(event: string, payload: Record<string, unknown>): CommitTarget | null {
  const repository = payload.repository as RepositoryPayload | undefined;
  if (!repository) return null;
  const base = {
    owner: repository.owner.login,
    repo: repository.name,
    cloneUrl: repository.clone_url,
    htmlUrl: repository.html_url,
  };
  const defaultRef = `refs/heads/${repository.default_branch ?? "main"}`;
  switch (event) {
    case "pull_request": {
      const pr = payload.pull_request as { number: number; head: { sha: string } };
      return { ...base, ref: `refs/pull/${pr.number}/head`, sha: pr.head.sha, onDefaultBranch: false };
    }
    case "push": {
      const ref = payload.ref as string;
      const after = payload.after as string;
      if (payload.deleted === true || ZERO_SHA.test(after) || !ref.startsWith("refs/heads/")) return null;
      return { ...base, ref, sha: after, onDefaultBranch: ref === defaultRef };
    }
    case "check_suite":
    case "check_run": {
      const suite = (
        event === "check_suite"
          ? payload.check_suite
          : (payload.check_run as { check_suite: unknown }).check_suite
      ) as { head_branch: string | null; head_sha: string; pull_requests?: Array<{ number: number }> };
      const pr = suite.pull_requests?.[0];
      const ref = suite.head_branch
        ? `refs/heads/${suite.head_branch}`
        : pr
          ? `refs/pull/${pr.number}/head`
          : null;
      if (ref === null) return null;
      return { ...base, ref, sha: suite.head_sha, onDefaultBranch: ref === defaultRef };
    }
    default:
      return null;
  }
}
