import { EventEmitter } from "node:events";
import { PYTHON_RUNTIME } from "@svc/app";
import { Logger, type Runner, run, type TaskList, type WorkerEvents, type WorkerPool } from "graphile-worker";
import { canSeeEvent } from "../../agents/can-see-event.ts";
import { recordScheduledReleases } from "../../agents/record-scheduled-releases.ts";
import { startAttestationSequencer } from "../../attestations/attestation-sequencer.ts";
import { runValidationConformance } from "../../authoring/validation-conformance-job.ts";
import { conformanceTask } from "../../conformance/conformance-task.ts";
import { sweepPendingConformance } from "../../conformance/sweep-pending-conformance.ts";
import { workerConnection } from "../../core/db/worker-connection.ts";
import { TaskName } from "../../core/jobs/task-name.ts";
import {
  beatWorkers,
  forgetWorkers,
  heartbeatMs,
  releaseDeadWorkersJobs,
  WORKER_DEAD_MS,
} from "../../core/jobs/worker-liveness.ts";
import { startWorkerWakeups } from "../../core/jobs/worker-wakeups.ts";
import type { Services } from "../../core/services/services.ts";
import { pruneEvents } from "../../events/prune-events.ts";
import { wakeLaggingSubscriptions } from "../../events/wake-lagging-subscriptions.ts";
import { startWebhookDelivery } from "../../events/webhook-delivery.ts";
import { purgeExpiredOAuthState } from "../../oauth/purge-expired-oauth-state.ts";
import { advanceReviewProcess } from "../../reviews/advance-review-process.ts";
import { runAgentSeat } from "../../reviews/run-agent-seat.ts";
import { sweepReviewProcesses } from "../../reviews/sweep-review-processes.ts";
import { liveImageState } from "../../sandbox-images/image-state.ts";
import { provisionImage } from "../../sandbox-images/provision-image.ts";
import { purgeExpiredGitHubStates } from "../../sessions/github-sign-in.ts";
import { sweepAttestationDeadlines } from "../../verification/sweep-attestation-deadlines.ts";
import { sweepStalledRuns } from "../../verification/sweep-stalled-runs.ts";
import { verifyRunTask } from "./verify-run-task.ts";

export interface WorkerOptions {
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** Poll interval in ms when LISTEN/NOTIFY misses a job (tests shorten it). */
  pollInterval?: number;
  /** Extra tasks (conformance, image provisioning) registered by their domains. */
  tasks?: TaskList;
  /** A worker silent this long is dead and its jobs are released (SVC_WORKER_DEAD_AFTER_S). */
  deadAfterMs?: number;
}

/**
 * Starts a graphile-worker runner for the service's tasks over the service's database: each
 * verification run, review process timers and hosted agent seats, a sweep for stalled runs and
 * review processes (and a purge of expired OAuth state) every minute, and the tasks given. Any number of
 * these run at once, in `svc-server serve` or apart (`svc-server worker`); jobs are claimed with
 * row locks, so each runs once. Its workers beat in `worker_heartbeats`, and the minute sweep
 * first releases the jobs of workers that stopped beating (a process killed mid-job), so every
 * kind of job is recovered, then re-enqueues what those jobs' records say is unfinished. Each
 * heartbeat also releases them, so in a fleet a killed worker's jobs move to a live one within
 * `deadAfterMs` and a beat, not at the next minute.
 */
export async function startWorker(services: Services, options: WorkerOptions = {}): Promise<Runner> {
  const log = services.log.child({ component: "worker" });
  // graphile-worker locks each job with its pool's id (`locked_by`), not with the id of the
  // worker inside the pool that runs it: the pool id is what must beat, or a live process's long
  // job would look abandoned and be released to another worker while it still runs.
  const workerIds = new Set<string>();
  const pools: WorkerPool[] = [];
  const events: WorkerEvents = new EventEmitter();
  events.on("pool:create", ({ workerPool }) => {
    workerIds.add(workerPool.id);
    pools.push(workerPool);
  });
  const deadAfterMs = options.deadAfterMs ?? WORKER_DEAD_MS;
  const releaseDead = async () => {
    const dead = await releaseDeadWorkersJobs(services.sql, services.clock(), deadAfterMs);
    if (dead.length > 0) log.warn({ worker_ids: dead }, "released the jobs of dead workers");
  };
  const beat = () =>
    beatWorkers(services.sql, [...workerIds], services.clock())
      .then(releaseDead)
      .catch((error: unknown) => log.warn({ err: error }, "worker heartbeat failed"));
  const heartbeat = setInterval(beat, heartbeatMs(deadAfterMs));
  heartbeat.unref();
  // Webhooks are delivered by a loop of this process's own, in passes over many subscriptions,
  // not a job per subscription: the queued deliver_events jobs (the minute sweep's) only name one.
  const webhooks = startWebhookDelivery(services, canSeeEvent);
  // Submissions' jobs wake this process's workers through these, not through graphile-worker's NOTIFY.
  const wakeups = await startWorkerWakeups(
    services.sql,
    (count) => {
      for (const pool of pools) if (!pool._shuttingDown) pool.nudge(count);
    },
    log,
  );
  const runner = await run({
    events,
    forbiddenFlags: () => wakeups.forbiddenFlags(),
    ...workerConnection(services.sql, (options.concurrency ?? 1) + 2, {
      asyncCommit: true,
      genericPlans: true,
    }),
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
        await releaseDead();
        await sweepStalledRuns(services);
        await sweepPendingConformance(services);
        await sweepReviewProcesses(services);
        await sweepAttestationDeadlines(services);
        await wakeLaggingSubscriptions(services);
        await purgeExpiredOAuthState(services.sql);
        await purgeExpiredGitHubStates(services);
      },
      [TaskName.runConformance]: conformanceTask(services),
      [TaskName.validationConformance]: async (payload) => {
        await runValidationConformance(services, payload as { upload_id: string; plan_hash: string });
      },
      [TaskName.provisionImage]: async (payload) => {
        await provisionImage(services, (payload as { image_ref: string }).image_ref);
      },
      [TaskName.advanceReviewProcess]: async (payload) => {
        await advanceReviewProcess(services, (payload as { review_process_id: string }).review_process_id);
      },
      [TaskName.reviewAgentSeat]: async (payload) => {
        await runAgentSeat(services, (payload as { assignment_id: string }).assignment_id);
      },
      [TaskName.deliverEvents]: async (payload) => {
        webhooks.consider([(payload as { subscription_id: string }).subscription_id]);
      },
      [TaskName.releaseSealedInputs]: async () => {
        await recordScheduledReleases(services);
      },
      [TaskName.pruneEvents]: async () => {
        const deleted = await pruneEvents(services);
        if (deleted > 0) log.info({ deleted }, "pruned events past their retention");
      },
      ...options.tasks,
    },
    crontab: `* * * * * ${TaskName.sweepStalledRuns}\n0 * * * * ${TaskName.pruneEvents}`,
  }).catch(async (error: unknown) => {
    await Promise.all([webhooks.stop(), wakeups.stop()]);
    throw error;
  });
  await beat();
  // Releases whose date passed while no worker ran are recorded now, not at their (past) job.
  await services.sql`
    select graphile_worker.add_job(${TaskName.releaseSealedInputs}, '{}'::json,
      job_key => 'release_sealed_inputs:startup', max_attempts => 5)`;
  // The id this process locks jobs with: what an operator matches against `locked_by`.
  log.info({ worker_ids: [...workerIds] }, "verification workers started");
  warnIfScriptRuntimeUnbound(services, log).catch(() => {});
  // Signs finished runs and appends them to the transparency log, after their commits.
  const sequencer = startAttestationSequencer(services);
  const stopped = () => {
    clearInterval(heartbeat);
    sequencer.stop().catch(() => {});
    webhooks.stop().catch(() => {});
    wakeups.stop().catch(() => {});
    // The pool may be closing with the process: a row left behind only ages out.
    forgetWorkers(services.sql, [...workerIds]).catch(() => {});
  };
  runner.promise.then(stopped, stopped);
  // Stopping the runner also waits for the webhook passes under way to commit.
  const stopRunner = runner.stop.bind(runner);
  runner.stop = async (...args: Parameters<Runner["stop"]>) => {
    await stopRunner(...args);
    await Promise.all([webhooks.stop(), wakeups.stop()]);
  };
  return runner;
}

/**
 * Says at start, once, what an operator must do before script checkers can run here: an unbound
 * svc-runtime/python:1 makes their stages inconclusive (docs/sandbox.md), which is otherwise only
 * seen on a run's record.
 */
async function warnIfScriptRuntimeUnbound(services: Services, log: Services["log"]): Promise<void> {
  const live = await liveImageState(services.sql, await services.sandbox.engines(), PYTHON_RUNTIME);
  if (live.state === "available" && live.runtime_digest !== null) return;
  log.warn(
    { image_ref: PYTHON_RUNTIME, state: live.state, reason: live.state_reason },
    live.state === "available"
      ? "script checkers run on this host's python3 (SVC_BWRAP_HOST_INTERPRETER=1): their records name no runtime bytes"
      : "script checkers cannot run until an operator binds the runtime: scripts/build-python-image.sh, then svc-server runtime bind svc-runtime/python:1 docker-daemon:svc-python:1 (docs/sandbox.md)",
  );
}
