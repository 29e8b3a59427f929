import { isLabelReleased, isScoreReleased, labelReleaseAt } from "./release-times.ts";
import type { SealingPolicy } from "./sealing-policy.ts";

/** What a read of one run must hide from its reader (spec 2.4, 2.3 score_release). */
export interface RunWithholding {
  /** Hide the run's `result` and `score` and the protected stages' results (final_only). */
  outcome: boolean;
  /** Hide protected stages' evidence, logs and diagnostics, and the run's evidence_md. */
  protectedEvidence: boolean;
  /** The stages that are protected (protectedStageKeys). */
  protectedStages: ReadonlySet<string>;
  /** When the outcome becomes visible; null when it is not withheld. */
  outcomeReleaseAt: string | null;
  /** When protected evidence becomes visible; null when it is not withheld. */
  evidenceReleaseAt: string | null;
}

/** Nothing withheld: managers, unsealed work, released evaluations. */
export const NOTHING_WITHHELD: RunWithholding = {
  outcome: false,
  protectedEvidence: false,
  protectedStages: new Set(),
  outcomeReleaseAt: null,
  evidenceReleaseAt: null,
};

/**
 * What to withhold from a reader of a run on a sealed revision at `now`. Managers (the Problem's
 * owner, administrators) see everything; everyone else loses final_only outcomes until score
 * release and protected evidence until label release. Stored records stay intact: this only
 * shapes what a read returns.
 */
export function runWithholding(
  sealing: SealingPolicy | null,
  protectedStages: ReadonlySet<string>,
  manager: boolean,
  now: Date,
): RunWithholding {
  if (sealing === null || manager) return NOTHING_WITHHELD;
  const outcome = !isScoreReleased(sealing, now);
  const protectedEvidence = protectedStages.size > 0 && !isLabelReleased(sealing, now);
  if (!outcome && !protectedEvidence) return NOTHING_WITHHELD;
  const release = labelReleaseAt(sealing);
  const releaseAt = sealing.score_release.release_at;
  return {
    outcome,
    protectedEvidence,
    protectedStages,
    outcomeReleaseAt: outcome
      ? releaseAt !== null && Date.parse(releaseAt) < Date.parse(release)
        ? releaseAt
        : release
      : null,
    evidenceReleaseAt: protectedEvidence ? release : null,
  };
}

/** Whether a stage's evidence, log and diagnostics are withheld. */
export function isStageEvidenceWithheld(withholding: RunWithholding, stageKey: string): boolean {
  return withholding.protectedEvidence && withholding.protectedStages.has(stageKey);
}

/** Whether a stage's result is withheld. */
export function isStageResultWithheld(withholding: RunWithholding, stageKey: string): boolean {
  return withholding.outcome && withholding.protectedStages.has(stageKey);
}

/** The text that stands in for withheld evidence. */
export function withholdingNotice(what: string, until: string | null): string {
  return `_${what} withheld: this is a sealed evaluation${until ? ` (until ${until})` : ""}._`;
}

/** The run fields withholding touches; the record types of other modules fit it structurally. */
export interface WithholdableRun {
  result: string | null;
  score: number | null;
  evidence_md: string;
  stage_results: Array<{
    stage_key: string;
    result: string | null;
    evidence_md: string;
    log: unknown;
    mechanism: { sandbox: { exit_code: number | null; evidence_hash: string | null } | null };
  }>;
}

/**
 * A copy of `run` as its reader may see it: final_only outcomes become null, protected stages'
 * evidence becomes a withholding notice and their logs and diagnostics (exit code, evidence hash)
 * are dropped, and the run's evidence_md (which quotes every stage's) becomes a notice too.
 */
export function withholdRun<R extends WithholdableRun>(run: R, withholding: RunWithholding): R {
  if (!withholding.outcome && !withholding.protectedEvidence) return run;
  const touchesProtected = run.stage_results.some((stage) =>
    withholding.protectedStages.has(stage.stage_key),
  );
  const stage_results = run.stage_results.map((stage) => {
    const hideEvidence = isStageEvidenceWithheld(withholding, stage.stage_key);
    const hideResult = isStageResultWithheld(withholding, stage.stage_key);
    if (!hideEvidence && !hideResult) return stage;
    const sandbox = stage.mechanism.sandbox;
    return {
      ...stage,
      result: hideResult ? null : stage.result,
      ...(hideEvidence && {
        evidence_md: withholdingNotice("Protected stage evidence", withholding.evidenceReleaseAt),
        log: null,
        mechanism: {
          ...stage.mechanism,
          sandbox: sandbox && { ...sandbox, exit_code: null, evidence_hash: null },
        },
      }),
    };
  });
  const hideRunEvidence = withholding.outcome || (withholding.protectedEvidence && touchesProtected);
  return {
    ...run,
    result: withholding.outcome ? null : run.result,
    score: withholding.outcome ? null : run.score,
    evidence_md:
      hideRunEvidence && run.evidence_md !== ""
        ? withholdingNotice(
            withholding.outcome ? "The outcome and evidence are" : "Protected evidence is",
            withholding.outcome ? withholding.outcomeReleaseAt : withholding.evidenceReleaseAt,
          )
        : run.evidence_md,
    stage_results,
  };
}
