import { createColors } from "picocolors";
import { failedConformance, type Validation } from "../client/authoring-results.ts";
import { formatConformanceFailures } from "./format-fixture-failure.ts";

/**
 * A validation as the author reads it: errors (file, JSON Pointer, code, message), then each
 * fixture a planned checker failed (with the checker's own output), then the reconciliation
 * (campaign and one line per problem: action and reason), then warnings.
 */
export function formatValidation(validation: Validation, options: { color: boolean }): string {
  const c = createColors(options.color);
  const lines: string[] = [];
  for (const e of validation.errors) {
    lines.push(
      `${c.red("error")} ${e.file} ${c.dim(e.path || "(file)")} ${c.red(`[${e.code}]`)} ${e.message}`,
    );
  }
  lines.push(...formatConformanceFailures(failedConformance(validation), options));
  const r = validation.reconciliation;
  if (r?.campaign) lines.push(`campaign ${r.campaign.slug}: ${r.campaign.action}`);
  for (const p of r?.problems ?? []) {
    const color = p.action === "conflict" ? c.red : p.action === "noop" ? c.dim : c.green;
    const revision =
      p.action === "create"
        ? "revision 1"
        : p.action === "revise" && p.next_revision_number !== undefined
          ? `revision ${p.next_revision_number}`
          : "";
    const detail = [revision, p.reason].filter(Boolean).join("; ");
    lines.push(`  ${color(p.action.padEnd(8))} ${p.slug}${detail ? `  ${c.dim(detail)}` : ""}`);
  }
  for (const w of r?.warnings ?? []) {
    lines.push(`${c.yellow("warning")} [${w.code}] ${w.slug} looks like ${w.of}`);
  }
  const counts = r ? Object.entries(r.counts).filter(([, n]) => n > 0) : [];
  if (counts.length > 0) lines.push(counts.map(([action, n]) => `${n} ${action}`).join(", "));
  const failed = failedConformance(validation);
  lines.push(
    validation.valid
      ? `${c.green("valid")}: plan_hash ${validation.plan_hash}${failed.length > 0 ? `; ${c.red(`but ${failed.length} conformance fixture${failed.length === 1 ? "" : "s"} failed`)}` : ""}`
      : `${c.red("invalid")}: ${validation.errors.length} error${validation.errors.length === 1 ? "" : "s"}, ${r?.counts.conflict ?? 0} conflict${r?.counts.conflict === 1 ? "" : "s"}`,
  );
  return `${lines.join("\n")}\n`;
}
