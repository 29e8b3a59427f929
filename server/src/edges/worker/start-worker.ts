import { Logger, type Runner, run, type TaskList } from "graphile-worker";
import { conformanceTask } from "../../conformance/conformance-task.ts";
import { sweepPendingConformance } from "../../conformance/sweep-pending-conformance.ts";
import { workerConnection } from "../../core/db/worker-connection.ts";
import { TaskName } from "../../core/jobs/task-name.ts";
import type { Services } from "../../core/services/services.ts";
import { purgeExpiredOAuthState } from "../../oauth/purge-expired-oauth-state.ts";
import { advanceReviewProcess } from "../../reviews/advance-review-process.ts";
import { runAgentSeat } from "../../reviews/run-agent-seat.ts";
import { sweepReviewProcesses } from "../../reviews/sweep-review-processes.ts";
import { provisionImage } from "../../sandbox-images/provision-image.ts";
import { sweepStalledRuns } from "../../verification/sweep-stalled-runs.ts";
import { verifyRunTask } from "./verify-run-task.ts";

export interface WorkerOptions {
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** Poll interval in ms when LISTEN/NOTIFY misses a job (tests shorten it). */
  pollInterval?: number;
  /** Extra tasks (conformance, image provisioning) registered by their domains. */
  tasks?: TaskList;
}

/**
 * Starts a graphile-worker runner for the service's tasks over the service's database: each
 * verification run, review process timers and hosted agent seats, a sweep for stalled runs and
 * review processes (and a purge of expired OAuth state) every minute, and the tasks given. Any number of
 * these run at once, in `svc-server serve` or apart (`svc-server worker`); jobs are claimed with
 * row locks, so each runs once.
 */
export async function startWorker(services: Services, options: WorkerOptions = {}): Promise<Runner> {
  const log = services.log.child({ component: "worker" });
  return await run({
    ...workerConnection(services.sql, (options.concurrency ?? 1) + 2),
    concurrency: options.concurrency ?? 1,
    pollInterval: options.pollInterval ?? 2000,
    noHandleSignals: true,
    logger: new Logger((scope) => (level, message, meta) => {
      const entry = { ...scope, ...meta };
      if (level === "error") log.error(entry, message);
      else if (level === "warning") log.warn(entry, message);
      else log.debug(entry, message);
    }),
    taskList: {
      [TaskName.verifyRun]: verifyRunTask(services),
      [TaskName.sweepStalledRuns]: async () => {
        await sweepStalledRuns(services);
        await sweepPendingConformance(services);
        await sweepReviewProcesses(services);
        await purgeExpiredOAuthState(services.sql);
      },
      [TaskName.runConformance]: conformanceTask(services),
      [TaskName.provisionImage]: async (payload) => {
        await provisionImage(services, (payload as { image_ref: string }).image_ref);
      },
      [TaskName.advanceReviewProcess]: async (payload) => {
        await advanceReviewProcess(services, (payload as { review_process_id: string }).review_process_id);
      },
      [TaskName.reviewAgentSeat]: async (payload) => {
        await runAgentSeat(services, (payload as { assignment_id: string }).assignment_id);
      },
      ...options.tasks,
    },
    crontab: `* * * * * ${TaskName.sweepStalledRuns}`,
  });
}
