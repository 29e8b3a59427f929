import {
  askService,
  CHECK_SUMMARY_MAX_BYTES,
  type CheckAnnotation,
  CheckConclusion,
  CONFORMANCE_WAIT_MS,
  checkAnnotations,
  checkConclusion,
  checkPackage,
  checkTitle,
  type FetchGitCommitOptions,
  fetchGitCommit,
  findGitPackages,
  formatCheckSummary,
  type GitSource,
  openGitTree,
  type PackageCheck,
  type RetryOptions,
  type ServiceClient,
} from "@svc/app";
import {
  type CheckRunOutput,
  type CheckRunRecord,
  completeCheckRun,
  listCheckRuns,
  MAX_ANNOTATIONS,
  type Octokit,
  reportCheckRunProgress,
  startCheckRun,
} from "./check-runs.ts";
import type { CommitTarget } from "./commit-target.ts";

/** The check run of the repository's package list when svc.json is malformed. */
export const PACKAGE_LIST_CHECK = "svc";

/** A package's check run name: `svc/<package path>`. */
export const checkName = (dir: string) => `svc/${dir}`;

export interface CheckCommitDeps {
  octokit: Octokit;
  appId: number;
  /** The installation token, for fetching the commit. */
  gitToken: string;
  /** The service; lint-only checks without one. */
  client: ServiceClient | null;
  http?: FetchGitCommitOptions["http"];
  retry?: RetryOptions;
  now?: () => Date;
}

/** One package of a checked commit. */
export interface CheckedPackage {
  dir: string;
  name: string;
  /** The check as computed now (lint always; the service's verdict unless the run was reused). */
  check: PackageCheck;
  /** True when an earlier run on this commit already reported this plan_hash and was kept. */
  reused: boolean;
}

export interface CommitCheck {
  source: GitSource;
  /** False when svc.json is malformed: no package was checked. */
  discovered: boolean;
  packages: CheckedPackage[];
}

/**
 * Checks every package of one commit and posts one check run per package, `svc/<path>`: fetch
 * the commit (shallow, into memory, with the installation token), find the packages, lint each,
 * ask the service to validate it, and report conclusion, counts, the plan table and annotations.
 * The run's `external_id` is the package's plan_hash, which publishing later reads back.
 *
 * Unless `force` (a re-run requested on GitHub), a package whose latest run on this commit is
 * complete, decided (success or failure) and reports the same plan_hash is left alone, so a
 * redelivered or duplicate event posts nothing new. A neutral run (the service could not be asked)
 * is redone.
 */
export async function checkCommit(
  target: CommitTarget,
  deps: CheckCommitDeps,
  options: { force?: boolean } = {},
): Promise<CommitCheck> {
  const { source } = await fetchGitCommit({
    url: target.cloneUrl,
    ref: target.ref,
    commit: target.sha,
    token: deps.gitToken,
    http: deps.http,
  });
  const where = { owner: target.owner, repo: target.repo };
  const existing = new Map(
    (await listCheckRuns(deps.octokit, { ...where, sha: target.sha, appId: deps.appId })).map((r) => [
      r.name,
      r,
    ]),
  );
  const discovery = await findGitPackages(source, target.sha);
  if (!discovery.ok) {
    const check: PackageCheck = {
      dir: ".",
      tree: null,
      lint: { ok: false, errors: discovery.errors, notes: [], plan: null, plan_hash: null, fixes: [] },
      service: null,
    };
    await post(target, deps, PACKAGE_LIST_CHECK, check, existing.get(PACKAGE_LIST_CHECK), options.force);
    return { source, discovered: false, packages: [] };
  }
  const packages: CheckedPackage[] = [];
  for (const dir of discovery.packages) {
    const name = checkName(dir);
    const linted = await checkPackage(
      dir,
      () => openGitTree(source, target.sha, { root: dir === "." ? "" : dir }),
      {
        now: deps.now?.(),
      },
    );
    const before = existing.get(name);
    if (!options.force && isSettled(before, linted.lint.plan_hash)) {
      packages.push({ dir, name, check: linted, reused: true });
      continue;
    }
    const id = await startCheckRun(deps.octokit, {
      ...where,
      sha: target.sha,
      name,
      externalId: linted.lint.plan_hash ?? "",
    });
    const check = deps.client
      ? await askService(linted, deps.client, deps.retry, (waited) => {
          // At once, then every 30 s: the check says why it is still running.
          if (waited % CONFORMANCE_PROGRESS_MS !== 0) return;
          void reportCheckRunProgress(deps.octokit, { ...where, id }, conformanceProgress(waited)).catch(
            () => {},
          );
        })
      : linted;
    await completeCheckRun(deps.octokit, { ...where, id }, await checkRunResult(target, check));
    packages.push({ dir, name, check, reused: false });
  }
  return { source, discovered: true, packages };
}

/** A complete, decided run that reported this plan_hash: doing it again would say the same. */
function isSettled(run: CheckRunRecord | undefined, planHash: string | null): boolean {
  return (
    run !== undefined &&
    run.status === "completed" &&
    (run.conclusion === CheckConclusion.success || run.conclusion === CheckConclusion.failure) &&
    (run.external_id ?? "") === (planHash ?? "")
  );
}

async function post(
  target: CommitTarget,
  deps: CheckCommitDeps,
  name: string,
  check: PackageCheck,
  before: CheckRunRecord | undefined,
  force: boolean | undefined,
): Promise<void> {
  if (!force && isSettled(before, null)) return;
  const where = { owner: target.owner, repo: target.repo };
  const id = await startCheckRun(deps.octokit, { ...where, sha: target.sha, name, externalId: "" });
  await completeCheckRun(deps.octokit, { ...where, id }, await checkRunResult(target, check));
}

/** The conclusion, plan_hash and output of a package's check run. */
export async function checkRunResult(
  target: CommitTarget,
  check: PackageCheck,
): Promise<{ conclusion: CheckConclusion; externalId: string; output: CheckRunOutput }> {
  const annotations = await checkAnnotations(check);
  const folder = check.dir === "." ? "" : `/${check.dir}`;
  const fullReport = `\`npx svc lint ${check.dir} --json\` (plan) or \`npx svc upload ${check.dir}\` (reconciliation) on ${target.htmlUrl}/tree/${target.sha}${folder}`;
  const dropped = annotations.length - MAX_ANNOTATIONS;
  const note =
    dropped > 0 ? `\n\n_${dropped} annotations beyond the first ${MAX_ANNOTATIONS} are not shown._` : "";
  const summary = formatCheckSummary(check, annotations, {
    maxBytes: CHECK_SUMMARY_MAX_BYTES - Buffer.byteLength(note),
    fullReport,
    heading: "",
  });
  return {
    conclusion: checkConclusion(check),
    externalId: check.lint.plan_hash ?? "",
    output: { title: checkTitle(check), summary: summary + note, annotations: annotations.map(toGitHub) },
  };
}

function toGitHub(a: CheckAnnotation): CheckRunOutput["annotations"][number] {
  return {
    path: a.path,
    start_line: a.line,
    end_line: a.line,
    annotation_level: a.level,
    title: a.title,
    // GitHub caps an annotation's message at 64 KB; lint messages are far shorter.
    message: a.message.slice(0, 4000),
  };
}

/** How often a check waiting for conformance fixtures says so. */
const CONFORMANCE_PROGRESS_MS = 30_000;

/** The output of a check that waits for the service's conformance fixtures. */
export function conformanceProgress(waitedMs: number): { title: string; summary: string } {
  return {
    title: "Waiting for conformance fixtures",
    summary: `The service runs this package's conformance fixtures in its sandbox queue; waited ${Math.round(waitedMs / 1000)} s of at most ${CONFORMANCE_WAIT_MS / 1000} s. The check completes with the plan and the reconciliation once they finish.`,
  };
}
