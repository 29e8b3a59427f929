import type { Task } from "graphile-worker";
import { TaskName } from "../../core/jobs/task-name.ts";
import type { Services } from "../../core/services/services.ts";
import { executeVerificationRun, finishWithError } from "../../verification/execute-verification-run.ts";

/** How long a waiting run sleeps before it looks again at its image or conformance. */
export const WAIT_RETRY_MS = 5_000;

/**
 * Executes one VerificationRun. A stage that must wait re-enqueues the run for later under the
 * same job key. A machinery failure is retried by graphile-worker with its backoff; the last
 * attempt finishes the run `error`, so no run stays unfinished.
 */
export function verifyRunTask(services: Services): Task {
  return async (payload, helpers) => {
    const { verification_run_id: runId } = payload as { verification_run_id: string };
    try {
      const outcome = await executeVerificationRun(services, runId);
      if (outcome.kind === "waiting") {
        await helpers.addJob(
          TaskName.verifyRun,
          { verification_run_id: runId },
          { jobKey: runId, maxAttempts: 3, runAt: new Date(Date.now() + WAIT_RETRY_MS) },
        );
      }
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
    }
  };
}
