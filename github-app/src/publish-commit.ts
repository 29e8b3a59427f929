import {
  askService,
  CHECK_SUMMARY_MAX_BYTES,
  CheckConclusion,
  type PackageCheck,
  type PublishOutcome,
  publishValidated,
  type ServiceClient,
} from "@svc/app";
import { changesSomething } from "@svc/schemas";
import { type CheckCommitDeps, checkCommit } from "./check-commit.ts";
import { completeCheckRun, listCheckRuns, startCheckRun } from "./check-runs.ts";
import type { CommitTarget } from "./commit-target.ts";

/** The check run that reports a commit's publication. */
export const PUBLISH_CHECK = "svc/publish";

/** What happened to a commit pushed to the default branch. */
export const PublishStatus = {
  /** Every changed package published (or nothing had changed). */
  published: "published",
  /** Nothing published: lint, validation, a conflict or the service stopped it. */
  failed: "failed",
  /** This delivery, or a successful publication of this commit, was already handled. */
  skipped: "skipped",
} as const;
export type PublishStatus = (typeof PublishStatus)[keyof typeof PublishStatus];

interface PackageResult {
  dir: string;
  outcome: PublishOutcome | "unchanged";
}

/**
 * Publishes a commit pushed to the default branch. The commit is checked first (its package
 * check runs, reused when already posted), then, in a `svc/publish` check run whose `external_id`
 * is the delivery id:
 *
 * 1. nothing is published when any package fails lint or validation, or has a conflict;
 * 2. each package whose reconciliation would change something (a create, update or revise, or a
 *    campaign created or updated) is published through the publish engine with the plan_hash its
 *    check run reported, read back from GitHub (`external_id`), so the App keeps no state between
 *    deliveries; files the service plans differently are refused with `stale_plan_hash`;
 * 3. the run lists every published problem with its action, id and revision.
 *
 * A delivery already handled (a `svc/publish` run with its id) or a commit already published
 * successfully does nothing new, unless `force` (the run was re-requested on GitHub).
 */
export async function publishCommit(
  target: CommitTarget,
  deps: CheckCommitDeps & { client: ServiceClient; deliveryId: string },
  options: { force?: boolean } = {},
): Promise<PublishStatus> {
  const where = { owner: target.owner, repo: target.repo };
  const earlier = await listCheckRuns(deps.octokit, {
    ...where,
    sha: target.sha,
    appId: deps.appId,
    name: PUBLISH_CHECK,
    all: true,
  });
  if (
    !options.force &&
    earlier.some((r) => r.external_id === deps.deliveryId || r.conclusion === CheckConclusion.success)
  ) {
    return PublishStatus.skipped;
  }
  const commit = await checkCommit(target, deps);
  const id = await startCheckRun(deps.octokit, {
    ...where,
    sha: target.sha,
    name: PUBLISH_CHECK,
    externalId: deps.deliveryId,
  });
  const finish = async (
    conclusion: typeof CheckConclusion.success | typeof CheckConclusion.failure,
    title: string,
    summary: string,
  ) => {
    await completeCheckRun(
      deps.octokit,
      { ...where, id },
      { conclusion, output: { title, summary, annotations: [] } },
    );
    return conclusion === CheckConclusion.success ? PublishStatus.published : PublishStatus.failed;
  };

  if (!commit.discovered) {
    return finish(
      CheckConclusion.failure,
      "Nothing published: svc.json is malformed",
      "See the `svc` check run.",
    );
  }
  const broken = commit.packages.filter((p) => !p.check.lint.ok);
  if (broken.length > 0) {
    return finish(
      CheckConclusion.failure,
      `Nothing published: lint errors in ${broken.length} package${broken.length === 1 ? "" : "s"}`,
      `Fix the lint errors reported by ${broken.map((p) => `\`${p.name}\``).join(", ")}; nothing was published.`,
    );
  }
  // The service's verdict on each package, as of now (a reused check run carries none).
  const checks: PackageCheck[] = [];
  for (const p of commit.packages)
    checks.push(p.check.service ? p.check : await askService(p.check, deps.client, deps.retry));
  const refused = checks.filter((c) => !c.service?.ok || !c.service.result.valid);
  if (refused.length > 0) {
    const lines = refused.map((c) =>
      c.service && !c.service.ok
        ? `- \`${c.dir}\`: the service could not be asked: [${c.service.code}] ${c.service.message}`
        : `- \`${c.dir}\`: invalid or in conflict (see its \`svc/${c.dir}\` check run)`,
    );
    return finish(
      CheckConclusion.failure,
      `Nothing published: ${refused.length} package${refused.length === 1 ? "" : "s"} cannot be published`,
      `${lines.join("\n")}\n\nNothing was published. Re-run this check once fixed.`,
    );
  }

  const reported = new Map(
    (await listCheckRuns(deps.octokit, { ...where, sha: target.sha, appId: deps.appId })).map((r) => [
      r.name,
      r.external_id,
    ]),
  );
  const results: PackageResult[] = [];
  for (const check of checks) {
    const verdict = check.service?.ok ? check.service.result : null;
    if (!verdict || !changesSomething(verdict.validation.reconciliation)) {
      results.push({ dir: check.dir, outcome: "unchanged" });
      continue;
    }
    const planHash = reported.get(`svc/${check.dir}`);
    if (!planHash) {
      results.push({
        dir: check.dir,
        outcome: {
          ok: false,
          code: "no_check",
          message: `no svc/${check.dir} check run reports a plan_hash for ${target.sha}`,
        },
      });
      continue;
    }
    // The plan_hash the check run showed is the one reviewed: the engine publishes nothing the
    // service plans differently (stale_plan_hash).
    const outcome = await publishValidated(
      deps.client,
      { tree: check.tree!, validated: verdict },
      { reviewed: planHash, linted: check.lint.plan_hash! },
      deps.retry,
    );
    results.push({ dir: check.dir, outcome });
  }
  const failed = results.filter((r) => r.outcome !== "unchanged" && !r.outcome.ok);
  const published = results.flatMap((r) =>
    r.outcome !== "unchanged" && r.outcome.ok ? r.outcome.problems : [],
  );
  const changed = published.filter((p) => p.action !== "noop");
  const title =
    failed.length > 0
      ? `Publication failed in ${failed.length} package${failed.length === 1 ? "" : "s"}`
      : changed.length > 0
        ? `Published ${changed.length} problem${changed.length === 1 ? "" : "s"}: ${actionCounts(changed)}`
        : "Nothing to publish: every package is unchanged";
  return finish(failed.length > 0 ? "failure" : "success", title, publishSummary(results));
}

function actionCounts(rows: ReadonlyArray<{ action: string }>): string {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.action, (counts.get(r.action) ?? 0) + 1);
  return [...counts].map(([action, n]) => `${n} ${action}`).join(", ");
}

/** The publication table, kept under GitHub's summary ceiling. */
function publishSummary(results: readonly PackageResult[]): string {
  const lines: string[] = [];
  const rows: string[] = [];
  for (const r of results) {
    if (r.outcome === "unchanged") lines.push(`- \`${r.dir}\`: unchanged, nothing published`);
    else if (!r.outcome.ok)
      lines.push(`- \`${r.dir}\`: **failed** [${r.outcome.code}] ${r.outcome.message.replace(/\s+/g, " ")}`);
    else {
      lines.push(
        `- \`${r.dir}\`: published${r.outcome.campaignId ? ` (campaign \`${r.outcome.campaignId}\`)` : ""}`,
      );
      for (const p of r.outcome.problems) {
        rows.push(
          `| \`${r.dir}\` | \`${p.slug}\` | ${p.action} | ${p.revision_number} | \`${p.problem_id}\` | \`${p.problem_revision_id}\` |`,
        );
      }
    }
  }
  const out = [...lines, ""];
  if (rows.length > 0)
    out.push(
      "| package | problem | action | revision | problem id | revision id |",
      "| --- | --- | --- | --- | --- | --- |",
    );
  let used = Buffer.byteLength(out.join("\n")) + 200;
  let shown = 0;
  for (const row of rows) {
    used += Buffer.byteLength(row) + 1;
    if (used > CHECK_SUMMARY_MAX_BYTES) break;
    out.push(row);
    shown++;
  }
  if (shown < rows.length)
    out.push(
      "",
      `_${rows.length - shown} more published problems are not listed; get_problem returns each by slug._`,
    );
  return out.join("\n");
}
