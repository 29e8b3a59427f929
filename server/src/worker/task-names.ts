import { VERIFY_TASK } from "../verification/queue-verification-run.ts";

/** The graphile-worker tasks of the service; jobs name them, so they never change once shipped. */
export const TaskName = {
  verifyRun: VERIFY_TASK,
  sweepStalledRuns: "sweep_stalled_runs",
  runConformance: "run_conformance",
  provisionImage: "provision_image",
} as const;
export type TaskName = (typeof TaskName)[keyof typeof TaskName];
