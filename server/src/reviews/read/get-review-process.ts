import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import type { Viewer } from "../../visibility/viewer.ts";
import { advanceReviewProcess } from "../advance-review-process.ts";
import { holdPassed } from "../node-state.ts";
import {
  type LoadedReviewProcess,
  loadReadableReviewProcess,
  loadReviewProcess,
} from "./load-review-process.ts";
import { type ProcessReader, processReaderOf } from "./process-reader.ts";
import { type ReviewProcessView, toReviewProcessView } from "./review-process-view.ts";

/** A process the viewer may read, loaded at the service clock, with their reading role. */
export interface ReadableReviewProcess {
  loaded: LoadedReviewProcess;
  reader: ProcessReader;
  now: Date;
}

/**
 * Loads a process for a reader, settled at the service clock: when a hold or a node deadline has
 * passed but no timer recorded it yet, the engine advances the process first (idempotent), so
 * a late timer never shows a wrong state. not_found when it does not exist, the viewer may not
 * read the work it reviews, or has no reading role in it (never a guess).
 */
export async function readReviewProcess(
  services: Services,
  viewer: Viewer,
  processId: string,
): Promise<ReadableReviewProcess> {
  const notFound = () =>
    new ServiceError("not_found", `no review process you can read has the id "${processId}"`, {
      review_process_id: processId,
    });
  let loaded = await loadReadableReviewProcess(services, viewer, processId);
  if (!loaded) throw notFound();
  const reader = processReaderOf(loaded, viewer);
  if (!reader) throw notFound();
  const now = services.clock();
  if (timePassedUnrecorded(loaded, now)) {
    await advanceReviewProcess(services, processId);
    loaded = (await loadReviewProcess(services.sql, processId))!;
  }
  return { loaded, reader, now };
}

/** get_review_process and `svc://review-processes/{id}`: the reader's view at the service clock. */
export async function getReviewProcess(
  services: Services,
  viewer: Viewer,
  processId: string,
  baseUrl: string,
): Promise<ReviewProcessView> {
  const { loaded, reader, now } = await readReviewProcess(services, viewer, processId);
  return toReviewProcessView(loaded, reader, now, baseUrl);
}

/** Whether something time-dependent is due that the stored rows do not show yet. */
export function timePassedUnrecorded(loaded: LoadedReviewProcess, now: Date): boolean {
  if (loaded.process.status !== "open") return false;
  const holdLapsed = loaded.assignments.some((a) => a.status === "claimed" && holdPassed(a, now));
  const deadlinePassed = loaded.nodes.some(
    (n) => n.status === "open" && n.deadline_at !== null && n.deadline_at <= now,
  );
  return holdLapsed || deadlinePassed;
}
