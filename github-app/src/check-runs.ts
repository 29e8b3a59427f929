import type { AnnotationLevel, CheckConclusion } from "@svc/app";
import type { ProbotOctokit } from "probot";

/** The installation-authenticated client of one event. */
export type Octokit = InstanceType<typeof ProbotOctokit>;

/** Where a check run lives. */
export interface RepoRef {
  owner: string;
  repo: string;
}

/** A check run as the App reads it back. */
export interface CheckRunRecord {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  external_id: string | null;
}

/** GitHub takes at most 50 annotations per create or update request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** The App posts at most this many annotations per check run (20 requests); the summary says so. */
export const MAX_ANNOTATIONS = 1000;

export interface CheckRunOutput {
  title: string;
  summary: string;
  text?: string;
  annotations: Array<{
    path: string;
    start_line: number;
    end_line: number;
    annotation_level: AnnotationLevel;
    title: string;
    message: string;
  }>;
}

/**
 * This App's check runs on a commit, newest first, optionally of one name; `all` includes runs a
 * later run of the same name superseded. Read from GitHub, so the App keeps no state of its own.
 */
export async function listCheckRuns(
  octokit: Octokit,
  where: RepoRef & { sha: string; appId: number; name?: string; all?: boolean },
): Promise<CheckRunRecord[]> {
  const runs = await octokit.paginate(octokit.rest.checks.listForRef, {
    owner: where.owner,
    repo: where.repo,
    ref: where.sha,
    app_id: where.appId,
    filter: where.all ? "all" : "latest",
    per_page: 100,
    ...(where.name ? { check_name: where.name } : {}),
  });
  return runs.map((r) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    conclusion: r.conclusion ?? null,
    external_id: r.external_id ?? null,
  }));
}

/** Creates an in-progress check run; returns its id. */
export async function startCheckRun(
  octokit: Octokit,
  where: RepoRef & { sha: string; name: string; externalId?: string; detailsUrl?: string },
): Promise<number> {
  const { data } = await octokit.rest.checks.create({
    owner: where.owner,
    repo: where.repo,
    name: where.name,
    head_sha: where.sha,
    status: "in_progress",
    started_at: new Date().toISOString(),
    ...(where.externalId !== undefined ? { external_id: where.externalId } : {}),
    ...(where.detailsUrl ? { details_url: where.detailsUrl } : {}),
  });
  return data.id;
}

/**
 * Says on a running check what it waits for (it stays in progress): a title and a summary.
 */
export async function reportCheckRunProgress(
  octokit: Octokit,
  where: RepoRef & { id: number },
  output: { title: string; summary: string },
): Promise<void> {
  await octokit.rest.checks.update({
    owner: where.owner,
    repo: where.repo,
    check_run_id: where.id,
    status: "in_progress",
    output,
  });
}

/**
 * Completes a check run with its conclusion and output. Annotations go 50 per request: the first
 * batch with the conclusion, the rest in updates that repeat title and summary (GitHub appends
 * annotations across updates). Beyond MAX_ANNOTATIONS they are dropped; callers say so in the
 * summary.
 */
export async function completeCheckRun(
  octokit: Octokit,
  where: RepoRef & { id: number },
  result: { conclusion: CheckConclusion; externalId?: string; output: CheckRunOutput },
): Promise<void> {
  const annotations = result.output.annotations.slice(0, MAX_ANNOTATIONS);
  const { annotations: _all, ...output } = result.output;
  let sent = 0;
  do {
    const batch = annotations.slice(sent, sent + ANNOTATIONS_PER_REQUEST);
    await octokit.rest.checks.update({
      owner: where.owner,
      repo: where.repo,
      check_run_id: where.id,
      ...(sent === 0
        ? {
            status: "completed" as const,
            conclusion: result.conclusion,
            completed_at: new Date().toISOString(),
            ...(result.externalId !== undefined ? { external_id: result.externalId } : {}),
          }
        : {}),
      output: { ...output, annotations: batch },
    });
    sent += batch.length;
  } while (sent < annotations.length);
}
