import { type SessionLock, stillHeld, trySessionLock } from "../core/db/session-lock.ts";
import type { Services } from "../core/services/services.ts";
import { SEQUENCER_BATCH, sequenceAttestations } from "./sequence-attestations.ts";

/** How often an idle sequencer looks at the queue (SVC_LOG_INTERVAL_MS). */
export const SEQUENCE_INTERVAL_MS = 500;

/** How often a worker process that does not sequence tries to take over (the sequencing one may have stopped). */
export const TAKE_OVER_MS = 2000;

/** The session lock of the worker process that sequences: 0x5356_4353_4551_4e43, "SVCSEQNC". */
const SEQUENCING_LOCK = "6005061178069438019";

export interface AttestationSequencer {
  /** Whether this process sequences now (tests). */
  readonly sequencing: boolean;
  stop(): Promise<void>;
}

/**
 * Runs the sequencer in this process: every interval it integrates what is queued, batch after
 * batch until the queue is empty. Every worker process runs one, but only the holder of a session
 * lock looks at the queue; the others try to take the lock every TAKE_OVER_MS, so the log keeps
 * integrating while any worker lives. One sequencing process keeps a batch's fixed cost (the
 * transaction, the log's frontier, the checkpoint's signature) at one per interval however large
 * the fleet: when every process looked each interval, each extra worker process cost the fleet
 * CPU per verdict and 4 processes verified slower than 2 (issue 38, docs/operations.md). The
 * batch's own advisory lock (sequenceAttestations) still makes two sequencers take turns, as in
 * the moment a lost session is noticed. A run's attestation is in a signed checkpoint within one
 * interval plus the batches ahead of it, and within TAKE_OVER_MS more when the sequencing process
 * has just stopped (docs/attestations.md).
 */
export function startAttestationSequencer(
  services: Services,
  intervalMs = Number(process.env.SVC_LOG_INTERVAL_MS) || SEQUENCE_INTERVAL_MS,
): AttestationSequencer {
  const log = services.log.child({ component: "attestation-sequencer" });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let holder: SessionLock | null = null;
  const letGo = async () => {
    const held = holder;
    holder = null;
    await held?.release();
  };
  /** Whether this process holds the lock now: taken if free, given up if its connection broke. */
  const holding = async (): Promise<boolean> => {
    if (holder === null) holder = await trySessionLock(services.sql, SEQUENCING_LOCK);
    else if (!(await stillHeld(holder))) await letGo();
    return holder !== null;
  };
  const tick = async () => {
    try {
      if (await holding()) {
        for (;;) {
          const batch = await sequenceAttestations(services);
          if (batch.appended > 0)
            log.debug({ appended: batch.appended, tree_size: batch.treeSize }, "log appended");
          if (stopped || batch.appended < SEQUENCER_BATCH) break;
        }
      }
    } catch (error) {
      if (!stopped) log.warn({ err: error }, "attestation sequencing failed; retrying at the next interval");
    }
    if (!stopped) {
      timer = setTimeout(
        () => {
          running = tick();
        },
        holder === null ? TAKE_OVER_MS : intervalMs,
      );
      timer.unref();
    }
  };
  running = tick();
  return {
    get sequencing() {
      return holder !== null;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await letGo();
    },
  };
}
