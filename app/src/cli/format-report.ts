import type { LintNote, LintRecord } from "@svc/schemas";
import { createColors } from "picocolors";
import type { LintReport } from "../plan/lint-package.ts";

/**
 * The human-readable lint report: errors then notes, grouped by file, each line the JSON Pointer,
 * the code (and rule) and the message, which says how to fix it. Colour only on a terminal.
 */
export function formatReport(result: LintReport, options: { color: boolean }): string {
  const c = createColors(options.color);
  const lines: string[] = [];
  const group = (records: ReadonlyArray<LintRecord | LintNote>) => {
    const byFile = new Map<string, Array<LintRecord | LintNote>>();
    for (const r of records) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
    return byFile;
  };
  for (const [file, records] of group(result.errors)) {
    lines.push(c.bold(c.underline(file)));
    for (const r of records) {
      const rule = "rule" in r && r.rule !== undefined ? ` rule ${r.rule}` : "";
      lines.push(
        `  ${c.red("error")} ${c.dim(r.path || "(file)")} ${c.red(`[${r.code}${rule}]`)} ${r.message}`,
      );
    }
  }
  for (const [file, records] of group(result.notes)) {
    lines.push(c.bold(file));
    for (const r of records)
      lines.push(`  ${c.cyan("note")}  ${c.dim(r.path || "(file)")} [${r.code}] ${r.message}`);
  }
  if (lines.length > 0) lines.push("");
  if (result.ok && result.plan) {
    const problems = result.plan.problems.length;
    lines.push(
      `${c.green("ok")}: ${problems} problem${problems === 1 ? "" : "s"} planned${result.plan.campaign ? ` in campaign ${result.plan.campaign.slug}` : ""}`,
    );
    lines.push(`plan_hash ${result.plan_hash}`);
  } else {
    const n = result.errors.length;
    lines.push(
      `${c.red("failed")}: ${n} error${n === 1 ? "" : "s"}, ${result.notes.length} note${result.notes.length === 1 ? "" : "s"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
