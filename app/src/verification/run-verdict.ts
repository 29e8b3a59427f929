import type { ResultKind, StageKind } from "@svc/schemas";
import type { StageResult } from "../sandbox/checker-job.ts";

/** A finished stage as the verdict needs it. */
export interface FinishedStage {
  stage_key: string;
  kind: StageKind;
  result: StageResult;
  /** The checker's score, when its stage is score-kind and it verified. */
  score: number | null;
  evidence_md: string;
}

export interface RunVerdict {
  result: StageResult;
  score: number | null;
  evidence_md: string;
}

/** Run-level evidence is at most 20,000 characters (spec 8). */
export const MAX_EVIDENCE_CHARS = 20_000;

/**
 * Whether a run goes on to its next stage after these finished ones: only while every stage so
 * far verified. Stages run in Contract order and stop at the first that does not pass.
 */
export function runContinues(stages: readonly { result: StageResult }[]): boolean {
  return stages.every((stage) => stage.result === "verified");
}

/**
 * The run's result from its stage results (spec 2.4): `verified` when every stage of the Contract
 * finished verified; otherwise the result of the first stage that did not pass (stages stop
 * there, so it is the last one). The score is set only for a score Contract that verified: the
 * last stage that reported one. A run with fewer finished stages than `stage_count` cannot be
 * verified: it is `error`, the service's own failure to run every stage.
 */
export function runVerdict(
  stages: readonly FinishedStage[],
  contract: { stage_count: number; result_kind: ResultKind },
): RunVerdict {
  const failing = stages.find((stage) => stage.result !== "verified");
  let result: StageResult;
  if (failing) result = failing.result;
  else if (stages.length === contract.stage_count) result = "verified";
  else result = "error";

  let score: number | null = null;
  if (result === "verified" && contract.result_kind === "score") {
    for (const stage of stages) if (stage.score !== null) score = stage.score;
  }
  return { result, score, evidence_md: runEvidence(stages, result) };
}

/** One line per stage, then each stage's own evidence, cut to the record's ceiling. */
function runEvidence(stages: readonly FinishedStage[], result: StageResult): string {
  const lines = [`**${result}**`, ""];
  for (const stage of stages) lines.push(`- \`${stage.stage_key}\` (${stage.kind}): ${stage.result}`);
  for (const stage of stages) {
    if (stage.evidence_md === "") continue;
    lines.push("", `### ${stage.stage_key}`, "", stage.evidence_md);
  }
  return truncateEvidence(lines.join("\n"));
}

/** Cuts Markdown evidence to the ceiling, saying so at the end. */
export function truncateEvidence(text: string, max = MAX_EVIDENCE_CHARS): string {
  if (text.length <= max) return text;
  const notice = "\n\n[evidence truncated]";
  return text.slice(0, max - notice.length) + notice;
}
