import { truncateEvidence } from "@svc/app";
import type { CheckerResult, ContractStage } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import { advanceReviewProcess } from "../reviews/advance-review-process.ts";
import { readNodeRows, readProcessRow } from "../reviews/read-process-rows.ts";
import type { ReviewProcessRow } from "../reviews/review-records.ts";
import { startReviewProcess } from "../reviews/start-review-process.ts";
import type { RunContext } from "./run-context.ts";
import type { FinishedStageOutcome } from "./run-sandbox-stage.ts";

/**
 * A review stage waiting on its process: the run stays `running` without a worker or a poll,
 * and is executed again when the process finishes (advanceReviewProcess enqueues it).
 */
export interface AwaitingReviewOutcome {
  kind: "awaiting_review";
  review_process_id: string;
}

/**
 * Runs one review stage (spec 2.4): starts the ReviewProcess on the stage's published protocol
 * once per run and stage (the Submission is the subject: its submitter, the Attempt's
 * Organization, the Problem, revision and Campaign), advances it, and while it is open answers
 * `awaiting_review`. A finished process ends the stage: accept verified, reject refuted,
 * unresolved and reviewers_unavailable inconclusive, with `mechanism.review`.
 */
export async function runReviewStage(
  services: Services,
  context: RunContext,
  stage: ContractStage,
): Promise<FinishedStageOutcome | AwaitingReviewOutcome> {
  const protocolId = stage.review_protocol_id;
  if (!protocolId?.startsWith("rpt_")) {
    return finished("inconclusive", `review stage \`${stage.key}\` names no published review protocol`, null);
  }
  const processId = await services.sql.begin(async (tx) => {
    const [subject] = await tx<
      {
        submission_id: string;
        user_id: string;
        organization_id: string | null;
        problem_id: string;
        campaign_id: string | null;
      }[]
    >`
      select s.id as submission_id, s.user_id, a.organization_id, s.problem_id, p.campaign_id
      from verification_runs r
      join submissions s on s.id = r.submission_id
      join attempts a on a.id = s.attempt_id
      join problems p on p.id = s.problem_id
      where r.id = ${context.run_id}`;
    if (!subject) throw new Error(`verification run ${context.run_id} has no submission`);
    const started = await startReviewProcess(tx, services.clock(), {
      review_protocol_id: protocolId,
      subject_kind: "submission",
      subject_id: subject.submission_id,
      subject_user_id: subject.user_id,
      subject_organization_id: subject.organization_id,
      problem_id: subject.problem_id,
      problem_revision_id: context.problem_revision_id,
      campaign_id: subject.campaign_id,
      verification_run_id: context.run_id,
      stage_key: stage.key,
    });
    // The stage's mechanism is fixed now: reads show a running review stage with its process.
    await tx`
      update verification_stage_results st
      set mechanism = jsonb_build_object('sandbox', null, 'external', null, 'review', jsonb_build_object(
        'review_process_id', p.id, 'protocol_hash', p.protocol_hash, 'review_protocol_id', p.review_protocol_id))
      from review_processes p
      where p.id = ${started} and st.verification_run_id = ${context.run_id} and st.stage_key = ${stage.key}`;
    return started;
  });
  await advanceReviewProcess(services, processId);
  const process = (await readProcessRow(services.sql, processId))!;
  if (process.status === "open") return { kind: "awaiting_review", review_process_id: processId };
  return finished(...(await verdictOf(services, stage, process)), process);
}

async function verdictOf(
  services: Services,
  stage: ContractStage,
  process: ReviewProcessRow,
): Promise<[CheckerResult, string]> {
  const head = `Review process \`${process.id}\` on protocol \`${process.review_protocol_id}\` (${process.protocol_hash})`;
  if (process.end_reason === "reviewers_unavailable") {
    const nodes = await readNodeRows(services.sql, process.id);
    const late = nodes
      .filter((node) => node.type === "review" && node.status === "open")
      .map((node) => `\`${node.node_id}\` (deadline ${node.deadline_at?.toISOString()})`);
    return [
      "inconclusive",
      `${head} ended **reviewers_unavailable**: a seat of ${late.join(", ") || "a review node"} was still open at its deadline, so the stage could not be settled.`,
    ];
  }
  const summary = `${head} completed: output node \`${process.protocol_snapshot.output}\` emitted **${process.outcome}**`;
  switch (process.outcome) {
    case "accept":
      return ["verified", `${summary}; stage \`${stage.key}\` is verified.`];
    case "reject":
      return ["refuted", `${summary}; stage \`${stage.key}\` is refuted.`];
    default:
      return ["inconclusive", `${summary}; the reviewers did not settle stage \`${stage.key}\`.`];
  }
}

function finished(
  result: CheckerResult,
  evidence: string,
  process: ReviewProcessRow | null,
): FinishedStageOutcome {
  return {
    kind: "finished",
    result,
    score: null,
    evidence_md: truncateEvidence(evidence),
    mechanism: process
      ? {
          sandbox: null,
          review: {
            review_process_id: process.id,
            protocol_hash: process.protocol_hash,
            review_protocol_id: process.review_protocol_id,
          },
          external: null,
        }
      : null,
    log: null,
    evidence_files: [],
  };
}
