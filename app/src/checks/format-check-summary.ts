import type { CheckAnnotation } from "./check-annotations.ts";
import type { PackageCheck } from "./check-package.ts";
import { checkTitle } from "./check-verdict.ts";

/** GitHub's ceiling on a check run's summary (and on its text): 65,535 characters. */
export const CHECK_SUMMARY_MAX_BYTES = 65_535;

export interface SummaryOptions {
  /** The summary's ceiling in UTF-8 bytes (a byte never undercounts a character). */
  maxBytes: number;
  /** Where the full report is, named when rows had to be left out. */
  fullReport: string;
  /** A heading level for the package's title ("###" by default; "" for none). */
  heading?: string;
}

/**
 * The Markdown report of one package check: its title and plan_hash, then the errors (file, line,
 * code, message), then the plan table (each problem: action, revision, reason; `planned` when the
 * service was not asked), then warnings. Rows are added while they fit in `maxBytes`; the rest
 * are counted in a closing line that points at the full report, so a plan of any size gives a
 * summary under the ceiling.
 */
export function formatCheckSummary(
  check: PackageCheck,
  annotations: readonly CheckAnnotation[],
  options: SummaryOptions,
): string {
  const heading = options.heading ?? "###";
  const head: string[] = [];
  head.push(`${heading ? `${heading} ` : ""}\`${check.dir}\`: ${checkTitle(check)}`, "");
  if (check.lint.plan_hash) head.push(`plan_hash \`${check.lint.plan_hash}\``, "");
  const verdict = check.service?.ok ? check.service.result.validation : null;
  if (check.service && !check.service.ok) {
    head.push(
      `The service could not be asked for the reconciliation: [${check.service.code}] ${cell(check.service.message)}`,
      "",
    );
  }
  const campaign = verdict?.reconciliation?.campaign ?? null;
  const planCampaign = check.lint.plan?.campaign;
  if (campaign) head.push(`Campaign \`${campaign.slug}\`: **${campaign.action}**`, "");
  else if (planCampaign) head.push(`Campaign \`${planCampaign.slug}\``, "");

  const sections: Array<{ header: string[]; rows: string[]; noun: string }> = [];
  const errors = annotations.filter((a) => a.level === "failure");
  if (errors.length > 0) {
    sections.push({
      header: ["| file | line | code | message |", "| --- | --- | --- | --- |"],
      rows: errors.map((a) => `| \`${cell(a.path)}\` | ${a.line} | ${cell(a.title)} | ${cell(a.message)} |`),
      noun: "errors",
    });
  }
  const reconciled = new Map((verdict?.reconciliation?.problems ?? []).map((p) => [p.slug, p]));
  const problems = check.lint.plan?.problems ?? [];
  if (problems.length > 0) {
    sections.push({
      header: ["| problem | action | revision | reason |", "| --- | --- | --- | --- |"],
      rows: problems.map((p) => {
        const r = reconciled.get(p.slug);
        const action = r?.action ?? "planned";
        const revision =
          r?.next_revision_number !== undefined
            ? r.action === "create"
              ? String(r.next_revision_number)
              : `${r.next_revision_number - 1} → ${r.next_revision_number}`
            : r
              ? "unchanged"
              : "";
        return `| \`${cell(p.slug)}\` | ${action === "planned" ? action : `**${action}**`} | ${revision} | ${cell(r?.reason ?? "")} |`;
      }),
      noun: "problems",
    });
  }
  const warnings = annotations.filter((a) => a.level === "warning");
  if (warnings.length > 0) {
    sections.push({
      header: ["| warning | file | line | message |", "| --- | --- | --- | --- |"],
      rows: warnings.map(
        (a) => `| ${cell(a.title)} | \`${cell(a.path)}\` | ${a.line} | ${cell(a.message)} |`,
      ),
      noun: "warnings",
    });
  }

  const bytes = (s: string) => Buffer.byteLength(s, "utf8") + 1;
  // Room for the closing line, whatever it counts.
  const footerRoom = bytes(
    `\n_Not shown: 999999999 errors, 999999999 problems, 999999999 warnings. Full report: ${options.fullReport}_`,
  );
  let used = head.reduce((n, line) => n + bytes(line), 0) + footerRoom;
  const out = [...head];
  const left: string[] = [];
  let full = used > options.maxBytes;
  for (const section of sections) {
    const headerBytes = section.header.reduce((n, line) => n + bytes(line), 0) + 1;
    let shown = 0;
    if (!full && used + headerBytes + bytes(section.rows[0]!) <= options.maxBytes) {
      out.push(...section.header);
      used += headerBytes;
      for (const row of section.rows) {
        if (used + bytes(row) > options.maxBytes) break;
        out.push(row);
        used += bytes(row);
        shown++;
      }
      out.push("");
    }
    if (shown < section.rows.length) {
      full = true;
      left.push(`${section.rows.length - shown} ${section.noun}`);
    }
  }
  if (left.length > 0) out.push(`_Not shown: ${left.join(", ")}. Full report: ${options.fullReport}_`);
  const text = out.join("\n");
  // Only a fullReport longer than the ceiling itself could get here; cut rather than overflow.
  return Buffer.byteLength(text) <= options.maxBytes
    ? text
    : Buffer.from(text)
        .subarray(0, options.maxBytes)
        .toString("utf8")
        .replace(/\uFFFD$/, "");
}

/** Text safe inside a Markdown table cell: one line, pipes escaped, at most 500 characters. */
function cell(text: string): string {
  const line = text.replace(/\s*\r?\n\s*/g, " ").replaceAll("|", "\\|");
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}
