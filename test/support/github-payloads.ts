/**
 * Webhook payloads as GitHub sends them, with the fields the App reads (and the ones probot
 * needs: installation, repository, sender). `cloneUrl` points at the local Git server.
 */
export interface PayloadRepository {
  owner: string;
  name: string;
  cloneUrl: string;
}

const INSTALLATION_ID = 4242;

function repository(repo: PayloadRepository) {
  return {
    id: 1,
    node_id: "R_1",
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: false,
    owner: { login: repo.owner, id: 7, type: "Organization" },
    html_url: `https://github.example/${repo.owner}/${repo.name}`,
    clone_url: repo.cloneUrl,
    default_branch: "main",
    master_branch: "main",
  };
}

const sender = { login: "ada", id: 9, type: "User" };

export function pullRequestPayload(
  repo: PayloadRepository,
  pr: { action: "opened" | "synchronize" | "reopened"; number: number; headSha: string; headRef: string },
) {
  return {
    action: pr.action,
    number: pr.number,
    pull_request: {
      number: pr.number,
      state: "open",
      head: { sha: pr.headSha, ref: pr.headRef, repo: repository(repo) },
      base: { sha: "0".repeat(40), ref: "main", repo: repository(repo) },
    },
    repository: repository(repo),
    installation: { id: INSTALLATION_ID },
    sender,
  };
}

export function pushPayload(repo: PayloadRepository, push: { ref: string; before: string; after: string }) {
  return {
    ref: push.ref,
    before: push.before,
    after: push.after,
    created: false,
    deleted: false,
    forced: false,
    commits: [],
    head_commit: { id: push.after },
    repository: repository(repo),
    pusher: { name: "ada" },
    installation: { id: INSTALLATION_ID },
    sender,
  };
}

export function checkRunRerequestedPayload(
  repo: PayloadRepository,
  run: { name: string; headSha: string; headBranch: string },
) {
  return {
    action: "rerequested",
    check_run: {
      id: 1,
      name: run.name,
      head_sha: run.headSha,
      check_suite: { id: 1, head_branch: run.headBranch, head_sha: run.headSha, pull_requests: [] },
    },
    repository: repository(repo),
    installation: { id: INSTALLATION_ID },
    sender,
  };
}
