import { setTimeout as sleep } from "node:timers/promises";
import type { JobHelpers, Task } from "graphile-worker";
import { enqueueRun } from "../../core/jobs/enqueue-run.ts";
import { RUN_JOB_FLAG, TaskName } from "../../core/jobs/task-name.ts";
import { runsFinished } from "../../core/metrics/metrics.ts";
import type { Services } from "../../core/services/services.ts";
import { contextFromTraceparent, withSpan } from "../../core/tracing/tracing.ts";
import {
  type ExecuteResult,
  executeVerificationRuns,
  finishWithError,
} from "../../verification/execute-verification-run.ts";

/** How long a waiting run sleeps before it looks again at its image or conformance. */
export const WAIT_RETRY_MS = 5_000;

/**
 * How many queued runs of a builtin-only Contract a job executes with its own
 * (executeVerificationRuns). Such a run costs under half a millisecond of CPU, so most of its
 * cost was the batch's statements and round trips; 31 companions keep one job's work near a few
 * tens of milliseconds. Against 15, alternating bench:verify: execution alone 0.36-0.42 ms of CPU
 * per verdict against 0.49-0.50, end to end unchanged or better (issue 38, docs/operations.md).
 */
export const COMPANION_RUNS = 31;

/**
 * How long a worker waits before its next job while runs trickle in, per worker process of the
 * fleet: after a batch that was not full, when the next job came at once (a batch that had
 * companions, or a lone run whose next job came within the wait). Taking each run as it arrives
 * would execute them in batches of one or two, whose fixed cost (taking the job, planning the
 * start, the verdict's commit) then takes the cores from the work that creates them; waiting a
 * little lets the batch grow, as PostgreSQL's commit_delay does for commits. The wait is the same
 * however many worker processes there are: the first process is woken for every Submission and
 * the others only once jobs wait longer than it takes (startWorkerWakeups), so extra processes do
 * not split the arrivals (issue 38: they had split the queue into batches of one or two, and the
 * wait then grew with the fleet to make up for it). No wait for a job after a quiet spell (no
 * load: no latency added) nor after a full batch (a deep queue: the next batch is full at once).
 * docs/operations.md, "Builtin verification", has the measurements.
 */
export const TRICKLE_WAIT_MS = 25;

/**
 * Executes one VerificationRun, with companions when its Contract allows. A stage that must wait
 * re-enqueues the run for later under the same job key. A machinery failure is retried by
 * graphile-worker with its backoff; the last attempt finishes the run `error`, so no run stays
 * unfinished. A companion that fails is enqueued again, to be retried as its own job.
 */
export function verifyRunTask(services: Services): Task {
  // This process's last batch: how many companions it took, and when it ended.
  let lastCompanions = COMPANION_RUNS;
  let lastEnded = 0;
  return async (payload, helpers) => {
    const { verification_run_id: runId, traceparent } = payload as {
      verification_run_id: string;
      traceparent?: string;
    };
    const trickling =
      lastCompanions < COMPANION_RUNS &&
      (lastCompanions > 0 || performance.now() - lastEnded < TRICKLE_WAIT_MS);
    if (trickling) await sleep(TRICKLE_WAIT_MS);
    try {
      // The run's span joins the trace of the request that enqueued it (enqueue-run.ts).
      const { lead, companions } = await withSpan(
        "verify_run",
        { "svc.verification_run_id": runId, "svc.job_attempt": helpers.job.attempts },
        async (span) => {
          const batch = await executeVerificationRuns(services, runId, COMPANION_RUNS);
          span?.setAttribute("svc.companion_runs", batch.companions.length);
          return batch;
        },
        contextFromTraceparent(traceparent),
      );
      lastCompanions = companions.length;
      for (const companion of companions) await settleCompanion(services, helpers, companion);
      if (lead.status === "rejected") throw lead.reason;
      await waitIfAsked(helpers, runId, lead.value);
    } catch (error) {
      const last = helpers.job.attempts >= helpers.job.max_attempts;
      services.log.error(
        { err: error, verification_run_id: runId, attempt: helpers.job.attempts, last },
        "verification run failed",
      );
      if (!last) throw error;
      await finishWithError(
        services,
        runId,
        `the service failed while running the verification: ${String((error as Error).message ?? error)}`,
      );
      runsFinished.labels("error").inc();
    } finally {
      lastEnded = performance.now();
    }
  };
}

async function waitIfAsked(helpers: JobHelpers, runId: string, outcome: ExecuteResult): Promise<void> {
  if (outcome.kind !== "waiting") return;
  await helpers.addJob(
    TaskName.verifyRun,
    { verification_run_id: runId },
    { jobKey: runId, maxAttempts: 3, runAt: new Date(Date.now() + WAIT_RETRY_MS), flags: [RUN_JOB_FLAG] },
  );
}

/** A companion's job is gone: what its own job would have done after it is done here. */
async function settleCompanion(
  services: Services,
  helpers: JobHelpers,
  companion: { run_id: string; outcome: PromiseSettledResult<ExecuteResult> },
): Promise<void> {
  if (companion.outcome.status === "fulfilled") {
    await waitIfAsked(helpers, companion.run_id, companion.outcome.value);
    return;
  }
  services.log.error(
    { err: companion.outcome.reason, verification_run_id: companion.run_id },
    "verification run failed alongside another; enqueued again",
  );
  await enqueueRun(services.sql, companion.run_id);
}
