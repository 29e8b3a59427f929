import { NoteCode, ReconciliationAction } from "@svc/schemas";
import { type ActionCounts, failedConformance } from "../client/authoring-results.ts";
import type { PackageCheck } from "./check-package.ts";

/** A check's conclusion, as GitHub names them. */
export const CheckConclusion = {
  /** Lint is clean and the service (when asked) found the package valid and free of conflicts. */
  success: "success",
  /**
   * Lint errors, validation errors or conflicts (publishing would be refused), or a checker that
   * fails its own conformance fixtures (it would be published but never become current).
   */
  failure: "failure",
  /** Lint is clean but the service could not be asked (unreachable or refused the credential). */
  neutral: "neutral",
} as const;
export type CheckConclusion = (typeof CheckConclusion)[keyof typeof CheckConclusion];

/**
 * Lint notes that usually mean a mistake (a file the format ignores, a field it ignores, a stage
 * without fixtures); the other notes (context.md never published, a linked binding) describe
 * choices. These and the service's `possible_duplicate` are a check's warnings.
 */
export const WARNING_NOTE_CODES: ReadonlySet<string> = new Set<NoteCode>([
  NoteCode.ignored_file,
  NoteCode.deprecated_field,
  NoteCode.fixture_coverage,
]);

export interface CheckCounts extends ActionCounts {
  problems: number;
  errors: number;
  warnings: number;
}

/** The counts of a check: problems planned, errors (lint and validation), warnings, actions. */
export function checkCounts(check: PackageCheck): CheckCounts {
  const verdict = check.service?.ok ? check.service.result : null;
  const reconciliation = verdict?.validation.reconciliation;
  const zero = { create: 0, update: 0, revise: 0, noop: 0, conflict: 0 };
  return {
    problems: check.lint.plan?.problems.length ?? 0,
    errors: check.lint.errors.length + (verdict?.validation.errors.length ?? 0),
    warnings:
      check.lint.notes.filter((n) => WARNING_NOTE_CODES.has(n.code)).length +
      (reconciliation?.warnings.length ?? 0),
    ...zero,
    ...reconciliation?.counts,
  };
}

export function checkConclusion(check: PackageCheck): CheckConclusion {
  if (!check.lint.ok) return CheckConclusion.failure;
  if (check.service === null) return CheckConclusion.success;
  if (!check.service.ok) return CheckConclusion.neutral;
  const { valid, validation } = check.service.result;
  return valid && failedConformance(validation).length === 0
    ? CheckConclusion.success
    : CheckConclusion.failure;
}

/** A one-line title with the counts: "3 problems: 1 create, 2 noop; 1 warning". */
export function checkTitle(check: PackageCheck): string {
  const counts = checkCounts(check);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const warnings = counts.warnings > 0 ? `; ${plural(counts.warnings, "warning")}` : "";
  if (!check.lint.ok) return `${plural(counts.errors, "lint error")}${warnings}`;
  const problems = plural(counts.problems, "problem");
  if (check.service === null) return `${problems}, lint clean${warnings}`;
  if (!check.service.ok)
    return `${problems}, lint clean; the service could not be asked (${check.service.code})`;
  const actions = Object.values(ReconciliationAction)
    .filter((a) => counts[a] > 0)
    .map((a) => `${counts[a]} ${a}`);
  const invalid = counts.errors > 0 ? `; ${plural(counts.errors, "validation error")}` : "";
  const failed = failedConformance(check.service.result.validation).length;
  const conformance = failed > 0 ? `; ${plural(failed, "conformance fixture")} failed` : "";
  return `${problems}: ${actions.join(", ") || "nothing to do"}${invalid}${conformance}${warnings}`;
}
