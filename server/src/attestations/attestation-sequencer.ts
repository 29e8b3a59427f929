import type { Services } from "../core/services/services.ts";
import { SEQUENCER_BATCH, sequenceAttestations } from "./sequence-attestations.ts";

/** How often an idle sequencer looks at the queue (SVC_LOG_INTERVAL_MS). */
export const SEQUENCE_INTERVAL_MS = 500;

export interface AttestationSequencer {
  stop(): Promise<void>;
}

/**
 * Runs the sequencer in this process: every interval it integrates what is queued, batch after
 * batch until the queue is empty. Every worker process runs one; the sequencer lock makes them
 * take turns, so the log keeps integrating while any worker lives. A run's attestation is in a
 * signed checkpoint within one interval plus the batches ahead of it (docs/attestations.md).
 */
export function startAttestationSequencer(
  services: Services,
  intervalMs = Number(process.env.SVC_LOG_INTERVAL_MS) || SEQUENCE_INTERVAL_MS,
): AttestationSequencer {
  const log = services.log.child({ component: "attestation-sequencer" });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      for (;;) {
        const batch = await sequenceAttestations(services);
        if (batch.appended > 0)
          log.debug({ appended: batch.appended, tree_size: batch.treeSize }, "log appended");
        if (stopped || batch.appended < SEQUENCER_BATCH) break;
      }
    } catch (error) {
      if (!stopped) log.warn({ err: error }, "attestation sequencing failed; retrying at the next interval");
    }
    if (!stopped) {
      timer = setTimeout(() => {
        running = tick();
      }, intervalMs);
      timer.unref();
    }
  };
  running = tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
