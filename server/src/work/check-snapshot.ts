import { ServiceError } from "../core/errors/service-error.ts";
import type { ManagedWork } from "./managed-work.ts";
import { workSnapshot } from "./work-snapshot.ts";

/** Throws conflict unless `expected` is the work's current snapshot, so no edit overwrites an unseen change. */
export function checkSnapshot(work: ManagedWork, expected: string): void {
  const current = workSnapshot(work);
  if (current !== expected) {
    throw new ServiceError(
      "conflict",
      `${work.kind} ${work.slug} changed since you read it (expected_snapshot is stale): call get_work_management again, check what changed, and retry with its snapshot`,
      { reason: "stale_snapshot", expected_snapshot: expected, current_snapshot: current },
    );
  }
}
