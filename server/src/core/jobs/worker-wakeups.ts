import type { Logger } from "pino";
import type { Pool } from "../db/connect-sql.ts";
import { type SessionLock, stillHeld, trySessionLock } from "../db/session-lock.ts";
import { RUN_JOB_FLAG } from "./task-name.ts";

/**
 * The channel wakeWorkers announces new jobs on, apart from graphile-worker's own `jobs:insert`
 * (which every worker process hears and answers): only the processes' wake-ups below listen to
 * it. Its payload is `{"count": n}`, the jobs committed since the last.
 */
export const JOBS_QUEUED = "svc_jobs_queued";
/** The session lock of the first worker process, 0x5356_4346_4952_5354, "SVCFIRST". */
const FIRST_WORKER_LOCK = "6005061122302038868";
/** How often a process that is not first tries to become it (the first may have stopped). */
const TAKE_OVER_MS = 2000;
/**
 * A run's job waiting this long means the first process cannot keep up: the others join in. At
 * 100 ms they joined in bench:scale on a loaded 2-core machine whenever the first was starved for
 * a moment, and the batches split again; at 500 ms they did not (docs/operations.md).
 */
export const JOIN_AFTER_MS = 500;
/** How often, at most, a process that is not first looks at how long jobs wait. */
const JOIN_CHECK_MS = 50;

export interface WorkerWakeups {
  /** Whether this process is the first now (tests, metrics). */
  readonly first: boolean;
  /**
   * graphile-worker's `forbiddenFlags`, asked before each job is taken: none for the first
   * process; for the others the run flag (RUN_JOB_FLAG), unless a run's job has waited over
   * JOIN_AFTER_MS.
   */
  forbiddenFlags(): null | string[] | Promise<null | string[]>;
  stop(): Promise<void>;
}

/**
 * Wakes this process's idle workers (`nudge`) for the jobs wakeWorkers announces, and decides
 * whether they may take runs, so that extra worker processes cost nothing while the first keeps
 * up: one process at a time (the holder of a session lock) listens for the announcements and
 * takes runs; the others neither listen nor take runs until, at their poll (graphile-worker's
 * pollInterval), a run has waited over JOIN_AFTER_MS (looked at most every JOIN_CHECK_MS), and
 * then keep taking them while runs wait that long.
 * Woken all at once, idle processes each took a job and its companions, splitting the queue into
 * smaller batches whose fixed costs (taking the job, starting the batch, the verdicts' commit)
 * were paid by every process, and each process's share of the wake-ups, timers and connections
 * came on top: the fleet's CPU per verdict rose with its size (issue 38, docs/operations.md).
 * Forbidding the flag matters as much as not waking: a worker that finds a job takes the next at
 * once, so a process that took one run at its poll stayed while the queue lasted. Nothing
 * depends on the first being alive: graphile-worker's poll (pollInterval) and its own
 * `jobs:insert` (add_job) still reach every process, and without a first, runs wait
 * JOIN_AFTER_MS plus a poll before another process takes them, until one takes the lock.
 */
export async function startWorkerWakeups(
  sql: Pool,
  nudge: (count: number) => void,
  log: Logger,
): Promise<WorkerWakeups> {
  let first: SessionLock | null = null;
  let listening: { unlisten(): Promise<void> } | null = null;
  let stopped = false;
  const onQueued = (payload: string) => {
    if (stopped) return;
    let count = 1;
    try {
      count = Math.max(1, Number((JSON.parse(payload) as { count?: number }).count) || 1);
    } catch {
      // A bare wake-up: one job.
    }
    nudge(count);
  };
  // Only the first listens: a wake-up heard costs each listening process (and its PostgreSQL
  // backend) a wake of its own, up to a hundred a second under load.
  const listen = async () => {
    listening ??= await sql.listen(JOBS_QUEUED, onQueued).catch((error: unknown) => {
      log.warn({ err: error }, "listening for queued jobs failed; the workers poll");
      return null;
    });
  };
  const unlisten = async () => {
    const held = listening;
    listening = null;
    await held?.unlisten().catch(() => {});
  };
  const keepOrTake = async () => {
    if (stopped) return;
    if (first !== null) {
      // A connection that broke took the lock with it: let another process be first.
      if (await stillHeld(first)) return;
      const lost = first;
      first = null;
      await Promise.all([lost.release(), unlisten()]);
    }
    const taken = await trySessionLock(sql, FIRST_WORKER_LOCK);
    if (taken !== null && stopped) await taken.release();
    else if (taken !== null) {
      // Listening before it says it is first: no wake-up falls between the two.
      await listen();
      first = taken;
    }
  };
  // Failing to reach the database leaves the process as it was until the next try.
  const timer = setInterval(() => void keepOrTake().catch(() => {}), TAKE_OVER_MS);
  timer.unref();
  // A lone worker process is the first before it takes its first job.
  await keepOrTake().catch(() => {});
  // Whether a run's job has waited over JOIN_AFTER_MS, looked at most every JOIN_CHECK_MS.
  let late = false;
  let lateAt = Number.NEGATIVE_INFINITY;
  let looking: Promise<boolean> | null = null;
  const runsWaitLong = (): boolean | Promise<boolean> => {
    if (performance.now() - lateAt < JOIN_CHECK_MS) return late;
    looking ??= sql<{ late: boolean }[]>`
      select exists (select from graphile_worker._private_jobs
                     where is_available and run_at <= now() - make_interval(secs => ${JOIN_AFTER_MS / 1000})
                       and flags ? ${RUN_JOB_FLAG}) as late`
      .then(
        ([row]) => row?.late === true,
        () => true, // Unsure: take runs, as every process did before.
      )
      .then((value) => {
        late = value;
        lateAt = performance.now();
        looking = null;
        return value;
      });
    return looking;
  };
  return {
    get first() {
      return first !== null;
    },
    forbiddenFlags() {
      if (first !== null) return null;
      const wait = runsWaitLong();
      return typeof wait === "boolean"
        ? wait
          ? null
          : [RUN_JOB_FLAG]
        : wait.then((value) => (value ? null : [RUN_JOB_FLAG]));
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await unlisten();
      const held = first;
      first = null;
      await held?.release();
    },
  };
}
