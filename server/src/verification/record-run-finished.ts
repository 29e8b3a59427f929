import { EventKind } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { appendEvent, type NewEvent } from "../events/append-event.ts";

/**
 * Appends `verification.run_finished` for a run that just finished, in the transaction that
 * finished it. The event is its owner's only, and carries ids, never the result or score: those
 * are read with get_verification, which withholds what sealed work withholds.
 */
export async function recordRunFinished(
  tx: Sql,
  runId: string,
  at: Date,
  /** The run's Submission facts when the caller has them (saves a query); else read here. */
  known?: RunSubmission,
): Promise<void> {
  const [run] = known
    ? [known]
    : await tx<RunSubmission[]>`
        select r.submission_id, s.attempt_id, s.user_id, s.problem_id
        from verification_runs r join submissions s on s.id = r.submission_id where r.id = ${runId}`;
  if (!run) return;
  await appendEvent(tx, runFinishedEvent(runId, at, run));
}

/** The `verification.run_finished` event of a run: its owner's only, ids and no verdict. */
export function runFinishedEvent(runId: string, at: Date, run: RunSubmission): NewEvent {
  return {
    kind: EventKind.runFinished,
    occurredAt: at,
    audienceUserId: run.user_id,
    problemId: run.problem_id,
    data: {
      verification_run_id: runId,
      submission_id: run.submission_id,
      attempt_id: run.attempt_id,
      problem_id: run.problem_id,
    },
  };
}

/** Whose run it is, as its `verification.run_finished` event says. */
export interface RunSubmission {
  submission_id: string;
  attempt_id: string;
  user_id: string;
  problem_id: string;
}
