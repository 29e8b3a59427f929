import type { ValidationConformance } from "@svc/schemas";
import { createColors } from "picocolors";

/** A fixture a checker failed, as `svc test`, `svc upload` and `svc draft` print it. */
export interface FixtureFailureLines {
  stage_key: string;
  /** The implementation that ran it (its image or `vfi_` id), when the report names one. */
  implementation?: string | null;
  fixture: string;
  expected: string;
  actual: string;
  detail: string;
  /** The last 4 KiB of the checker's stdout then stderr. */
  log_tail: string;
}

/**
 * The lines of one failed fixture: where (stage, fixture, implementation), expected against
 * actual, why, then the checker's own output under a `|` gutter, so a traceback reads as the
 * checker wrote it. `indent` prefixes every line.
 */
export function formatFixtureFailure(
  failure: FixtureFailureLines,
  options: { color: boolean; indent?: string; header?: boolean },
): string[] {
  const c = createColors(options.color);
  const indent = options.indent ?? "";
  const lines: string[] = [];
  if (options.header !== false) {
    const by = failure.implementation ? ` ${c.dim(`(${failure.implementation})`)}` : "";
    lines.push(
      `${indent}${c.red("FAIL")} ${failure.stage_key}/${failure.fixture}: expected ${failure.expected}, actual ${failure.actual}${by}`,
    );
  }
  if (failure.detail) lines.push(`${indent}     ${failure.detail.split("\n")[0]}`);
  const tail = failure.log_tail.replace(/\n+$/, "");
  if (tail) {
    lines.push(`${indent}     ${c.dim("checker output (last 4 KiB):")}`);
    for (const line of tail.split("\n")) lines.push(`${indent}     ${c.dim("|")} ${line}`);
  }
  return lines;
}

/**
 * The fixtures planned checkers failed at validation, as `svc upload` and `svc draft` print them:
 * a heading, then each failure named by its checker's file (or image) with the checker's output.
 */
export function formatConformanceFailures(
  failures: readonly ValidationConformance[],
  options: { color: boolean },
): string[] {
  if (failures.length === 0) return [];
  const c = createColors(options.color);
  const lines = [`${c.red("conformance")}: a checker failed its own fixtures; it will not become current`];
  for (const f of failures) {
    lines.push(
      ...formatFixtureFailure(
        { ...f, implementation: f.program ?? f.image_ref },
        { color: options.color, indent: "  " },
      ),
    );
  }
  return lines;
}
