import { createColors } from "picocolors";
import type { DraftFailure, DraftSummary } from "../client/publish-package.ts";
import type { PublishedFailure } from "../client/stays-current.ts";
import { formatConformanceFailures } from "./format-fixture-failure.ts";

/** One line per problem (action, slug, revision, id), then a line of totals. */
export function formatDraft(summary: DraftSummary, options: { color: boolean }): string {
  const c = createColors(options.color);
  const lines: string[] = [];
  if (summary.campaign) {
    lines.push(
      `campaign ${summary.campaign.slug}: ${summary.campaign.action}${summary.campaign.campaign_id ? ` ${c.dim(summary.campaign.campaign_id)}` : ""}`,
    );
  }
  for (const p of summary.problems) {
    const color = p.action === "noop" ? c.dim : c.green;
    const revision = p.revision_number === null ? "" : ` revision ${p.revision_number}`;
    lines.push(
      `  ${color(p.action.padEnd(7))} ${p.slug}${revision}${p.problem_id ? ` ${c.dim(p.problem_id)}` : ""}`,
    );
  }
  const counts = Object.entries(summary.counts)
    .filter(([, n]) => n > 0)
    .map(([action, n]) => `${n} ${action}`)
    .join(", ");
  const skipped = summary.skipped_shards > 0 ? `, ${summary.skipped_shards} unchanged and skipped` : "";
  lines.push(
    `${c.green("published")}: ${summary.problems_total} problem${summary.problems_total === 1 ? "" : "s"} in ${summary.planned_shards} shard${summary.planned_shards === 1 ? "" : "s"} (${summary.published_shards} published${skipped})${counts ? `: ${counts}` : ""}`,
  );
  return `${lines.join("\n")}\n`;
}

/** Why the run stopped, naming what to fix: errors by file, path and code; conflicts by slug. */
export function formatFailure(failure: DraftFailure, summary: DraftSummary): string {
  const shard = "shard" in failure ? `shard ${failure.shard + 1} of ${summary.planned_shards}: ` : "";
  switch (failure.kind) {
    case "too_large":
      return `svc: cannot shard the package: ${failure.message}\n`;
    case "invalid": {
      const lines = [`svc: ${shard}the service found the upload invalid; nothing in it was published`];
      for (const e of failure.errors)
        lines.push(`  error ${e.file} ${e.path || "(file)"} [${e.code}] ${e.message}`);
      for (const conflict of failure.conflicts) lines.push(`  conflict ${conflict.slug}: ${conflict.reason}`);
      return `${lines.join("\n")}\n`;
    }
    case "refused":
      return `svc: ${shard}${failure.step} was refused [${failure.code}]: ${failure.message}\n`;
    case "unavailable":
      return `svc: ${shard}${failure.step} kept failing [${failure.code}]: ${failure.message}; run svc draft again to resume\n`;
    case "stale":
      return `svc: ${shard}publication was stale again after a fresh upload [${failure.code}]: ${failure.message}; run svc draft again\n`;
    default: {
      const never: never = failure;
      throw new Error(`unhandled failure ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The fixtures published checkers failed at validation, each with the checker's output, then per
 * stage the implementation it keeps running (or that it has none, so its runs wait).
 */
export function formatPublishedFailures(
  failures: readonly PublishedFailure[],
  options: { color: boolean },
): string {
  if (failures.length === 0) return "";
  const lines = formatConformanceFailures(failures, options);
  const stages = new Map(failures.map((f) => [`${f.implementation} ${f.stage_key}`, f]));
  for (const f of stages.values()) {
    const what = f.program ?? f.image_ref;
    lines.push(
      f.stays_current
        ? `  ${f.stage_key}: ${f.stays_current.verifier_implementation_id} (version ${f.stays_current.version_number}) stays current; ${what} does not replace it`
        : `  ${f.stage_key}: no implementation is current, so its runs wait until one passes its fixtures (${what} failed)`,
    );
  }
  return `${lines.join("\n")}\n`;
}
