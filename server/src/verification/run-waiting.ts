import { EventKind } from "@svc/schemas";

/** How often a caller polling get_verification should look again. */
export const RUN_POLL_INTERVAL_MS = 5000;

/**
 * How to wait for a verification run (issue 36), told by get_verification while a run is not
 * finished and by start_attempt before the first submission: poll get_verification every
 * RUN_POLL_INTERVAL_MS, or be woken: `events/subscribe` to `verification.run_finished` with a
 * stream delivery, then hold `events/stream` open (docs/agents.md, "Events").
 */
export const runWaiting = {
  poll: { tool: "get_verification", interval_ms: RUN_POLL_INTERVAL_MS },
  wake: {
    subscribe: {
      method: "events/subscribe",
      params: { kinds: [EventKind.runFinished], delivery: { type: "stream" } },
    },
    stream: "events/stream with the subscription_id: each run_finished event names its verification_run_id",
  },
} as const;
