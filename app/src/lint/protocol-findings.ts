import type { LintNote, LintRecord } from "@svc/schemas";

/**
 * Collects what the protocol rules find in one review-protocol.json and hands it back in a
 * deterministic order: by JSON Pointer (array indices compared as numbers, so /nodes/2 comes
 * before /nodes/10), then by rule number, then by message.
 */
export class ProtocolFindings {
  readonly #file: string;
  readonly #errors: LintRecord[] = [];
  readonly #notes: LintNote[] = [];

  constructor(file: string) {
    this.#file = file;
  }

  /** A broken numbered rule; the message must start with "rule <n>: " and say how to fix it. */
  violation(rule: number, path: string, message: string): void {
    this.#errors.push({
      file: this.#file,
      path,
      code: "rule_violation",
      message: `rule ${rule}: ${message}`,
      rule,
    });
  }

  /** A reference to something the package does not contain (a local skill). */
  notFound(path: string, message: string): void {
    this.#errors.push({ file: this.#file, path, code: "not_found", message });
  }

  deprecated(path: string, message: string): void {
    this.#notes.push({ file: this.#file, path, code: "deprecated_field", message });
  }

  result(): { errors: LintRecord[]; notes: LintNote[] } {
    const order = (a: LintRecord | LintNote, b: LintRecord | LintNote) =>
      comparePointers(a.path, b.path) ||
      ("rule" in a ? (a.rule ?? 0) : 0) - ("rule" in b ? (b.rule ?? 0) : 0) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);
    return { errors: [...this.#errors].sort(order), notes: [...this.#notes].sort(order) };
  }
}

/** Orders JSON Pointers segment by segment, numeric segments by value. */
export function comparePointers(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  for (let i = 0; i < Math.min(as.length, bs.length); i += 1) {
    const x = as[i]!;
    const y = bs[i]!;
    if (x === y) continue;
    const numeric = /^\d+$/;
    if (numeric.test(x) && numeric.test(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}
