/**
 * The graphile-worker tasks of the service. Domain code enqueues jobs by these names inside its
 * own transactions (`graphile_worker.add_job`); the worker (edges/worker) maps each name to its
 * handler. Queued jobs carry the name, so a name never changes once shipped.
 */
export const TaskName = {
  /** Executes one VerificationRun (payload `verification_run_id`). */
  verifyRun: "verify_run",
  /** The minute sweep re-enqueueing runs whose worker died. */
  sweepStalledRuns: "sweep_stalled_runs",
  /** Runs a VerifierImplementation's conformance fixtures (payload `verifier_implementation_id`). */
  runConformance: "run_conformance",
  /** Runs an upload's sandboxed conformance fixtures at validation (payload `upload_id`, `plan_hash`). */
  validationConformance: "validation_conformance",
  /** Provisions a custom sandbox image (payload `image_ref`). */
  provisionImage: "provision_image",
  /** Advances one review process: a hold lapsing, a node deadline, or a lost wake-up. */
  advanceReviewProcess: "advance_review_process",
  /** Invokes the hosted agent of one agent assignment, outside any transaction. */
  reviewAgentSeat: "review_agent_seat",
  /** Looks at one webhook subscription soon (payload `subscription_id`): the minute sweep's hand-over to the deliverer. */
  deliverEvents: "deliver_events",
  /** Writes the criteria changes of sealed inputs released by date (no payload: it scans what is due). */
  releaseSealedInputs: "release_sealed_inputs",
  /** The hourly deletion of events past their retention (events/prune-events.ts). */
  pruneEvents: "prune_events",
} as const;
export type TaskName = (typeof TaskName)[keyof typeof TaskName];

/**
 * The flag every verify_run job carries (graphile-worker's job flags): a worker process that is
 * not the first forbids it while the first keeps up (startWorkerWakeups), so it takes other jobs
 * but not the runs the first is gathering into a batch.
 */
export const RUN_JOB_FLAG = "run";
