import type { LintNote, LintRecord, Plan } from "@svc/schemas";
import type { FixtureFix } from "../lint/lint-context.ts";
import { type LintOptions, lintTree } from "../lint/lint-tree.ts";
import type { FileTree } from "../tree/file-tree.ts";
import { buildPlan } from "./build-plan.ts";
import { planHash } from "./plan-hash.ts";

/**
 * What `svc lint` reports, and the service's validator, the GitHub App and the Action read: the
 * lint records and, when lint is clean, the plan and its plan_hash. `svc lint --json` prints
 * `{ok, errors, notes, plan, plan_hash}` of it.
 */
export interface LintReport {
  ok: boolean;
  errors: LintRecord[];
  notes: LintNote[];
  /** The plan, computed from files only; null when there are errors. */
  plan: Plan | null;
  plan_hash: string | null;
  /** Fixture hashes `svc lint --fix` would write. */
  fixes: FixtureFix[];
}

/** Lints a package, then plans it when lint is clean: lintTree, buildPlan and planHash in a row. */
export async function lintPackage(tree: FileTree, options: LintOptions = {}): Promise<LintReport> {
  const lint = await lintTree(tree, options);
  const plan = lint.ok ? buildPlan(lint) : null;
  return {
    ok: lint.ok,
    errors: lint.errors,
    notes: lint.notes,
    plan,
    plan_hash: plan === null ? null : planHash(plan),
    fixes: lint.fixes,
  };
}
