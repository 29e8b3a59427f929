import { CONFORMANCE_TASK } from "../../conformance/enqueue-conformance.ts";
import { ReviewTask } from "../../reviews/review-jobs.ts";
import { PROVISION_TASK } from "../../sandbox-images/register-images.ts";
import { VERIFY_TASK } from "../../verification/queue-verification-run.ts";

/** The graphile-worker tasks of the service; jobs name them, so they never change once shipped. */
export const TaskName = {
  verifyRun: VERIFY_TASK,
  sweepStalledRuns: "sweep_stalled_runs",
  runConformance: CONFORMANCE_TASK,
  provisionImage: PROVISION_TASK,
  advanceReviewProcess: ReviewTask.advance,
  reviewAgentSeat: ReviewTask.agentSeat,
} as const;
export type TaskName = (typeof TaskName)[keyof typeof TaskName];
