import type { Task } from "graphile-worker";
import { TaskName } from "../core/jobs/task-name.ts";
import type { Services } from "../core/services/services.ts";
import { runImplementationConformance } from "./run-implementation-conformance.ts";

/** How long an implementation waiting for its image sleeps before it looks again. */
export const CONFORMANCE_RETRY_MS = 15_000;

/** The `run_conformance` job: runs the fixtures; an image still provisioning puts the job back for later. */
export function conformanceTask(services: Services): Task {
  return async (payload, helpers) => {
    const { verifier_implementation_id: id } = payload as { verifier_implementation_id: string };
    const outcome = await runImplementationConformance(services, id);
    if (outcome.kind === "wait") {
      await helpers.addJob(
        TaskName.runConformance,
        { verifier_implementation_id: id },
        { jobKey: `conformance:${id}`, maxAttempts: 5, runAt: new Date(Date.now() + CONFORMANCE_RETRY_MS) },
      );
    } else if (outcome.kind === "cannot_run") {
      services.log.warn(
        { verifier_implementation_id: id, reason: outcome.reason },
        "conformance cannot run here yet",
      );
    }
  };
}
