import type { CampaignFile, LintNote, LintRecord } from "@svc/schemas";
import type { Binding } from "./check-bindings.ts";
import type { ContractEntry } from "./check-contract.ts";
import type { ProblemEntry } from "./check-problem-files.ts";
import type { ProtocolEntry } from "./check-protocols.ts";
import type { SkillEntry } from "./check-skills.ts";
import type { FixtureFix } from "./lint-context.ts";

/** A problem that passed every lint pass, with the mechanisms it resolved to. */
export interface CheckedProblem extends ProblemEntry {
  skills: SkillEntry[];
  contract: ContractEntry | null;
  bindings: Binding[];
}

/** What lint found in a package that passed every pass: the entries a plan is computed from. */
export interface CheckedPackage {
  campaign: CampaignFile | null;
  skills: SkillEntry[];
  protocols: ProtocolEntry[];
  contracts: ContractEntry[];
  problems: CheckedProblem[];
}

/**
 * The outcome of linting a package: the records, the fixes `svc lint --fix` would write, and,
 * when no pass found an error, the checked entries (`checked`). The plan is a separate step
 * (plan/build-plan.ts) computed from a clean result.
 */
export type LintResult = CleanLintResult | FailedLintResult;

export interface CleanLintResult {
  ok: true;
  errors: LintRecord[];
  notes: LintNote[];
  /** Fixture hashes `svc lint --fix` would write. */
  fixes: FixtureFix[];
  checked: CheckedPackage;
}

export interface FailedLintResult {
  ok: false;
  errors: LintRecord[];
  notes: LintNote[];
  /** Fixture hashes `svc lint --fix` would write. */
  fixes: FixtureFix[];
  checked: null;
}
