import type { ValidationConformance } from "@svc/schemas";
import { failedConformance } from "../client/authoring-results.ts";
import type { CheckAnnotation } from "./check-annotations.ts";
import type { PackageCheck } from "./check-package.ts";

/** An annotation's message keeps the end of the checker's output, where its traceback ends. */
const MESSAGE_TAIL_CHARS = 3000;

/**
 * A failure annotation per fixture a planned checker failed at validation, at the checker's file:
 * its script beside the contract (the problem's folder, else the package root), on the line of
 * that script its traceback names last, else line 1; an image or builtin checker at its
 * verifier-contract.json. The message says stage, fixture, expected and actual, why, then the
 * checker's own output.
 */
export function conformanceAnnotations(check: PackageCheck, at: (file: string) => string): CheckAnnotation[] {
  const verdict = check.service?.ok ? check.service.result.validation : null;
  if (!verdict) return [];
  return failedConformance(verdict).map((failure) => {
    const file = checkerFile(check, failure);
    const tail = failure.log_tail.replace(/\n+$/, "");
    const output = tail.length > MESSAGE_TAIL_CHARS ? `…${tail.slice(-MESSAGE_TAIL_CHARS)}` : tail;
    return {
      path: at(file),
      line: failure.program ? tracebackLine(tail, failure.program) : 1,
      level: "failure",
      title: "conformance_failed",
      message: [
        `${failure.stage_key}/${failure.fixture}: expected ${failure.expected}, actual ${failure.actual}`,
        failure.detail,
        output && `checker output (last 4 KiB):\n${output}`,
      ]
        .filter(Boolean)
        .join("\n"),
    };
  });
}

/** The package path of the checker that ran a fixture (its script, else its contract). */
function checkerFile(check: PackageCheck, failure: ValidationConformance): string {
  const plan = check.lint.plan;
  const name = failure.program ?? "verifier-contract.json";
  const dirs = (plan?.problems ?? [])
    .filter((p) => p.verifier_implementations.includes(failure.implementation))
    .map((p) => (p.dir === "" || p.dir === "." ? "" : `${p.dir.replace(/\/$/, "")}/`));
  for (const dir of [...dirs, ""]) {
    if (check.tree?.size(`${dir}${name}`) !== undefined) return `${dir}${name}`;
  }
  return name;
}

/** The line of `program` a Python traceback names last (the frame nearest the error), or 1. */
function tracebackLine(output: string, program: string): number {
  const escaped = program.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const frames = [...output.matchAll(new RegExp(`File "[^"]*${escaped}", line (\\d+)`, "g"))];
  const line = Number(frames.at(-1)?.[1] ?? 1);
  return Number.isSafeInteger(line) && line >= 1 ? line : 1;
}
