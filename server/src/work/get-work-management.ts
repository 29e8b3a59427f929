import type { Sql } from "../core/db/connect-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { loadManagedWork, type ManagedWork } from "./managed-work.ts";
import type { WorkReference } from "./work-reference.ts";
import { workSnapshot } from "./work-snapshot.ts";

/** get_work_management: the work as its managers see it, and the snapshot edits must pass back. */
export async function getWorkManagement(
  sql: Sql,
  viewer: Viewer,
  reference: WorkReference,
): Promise<{ work: ManagedWork; snapshot: string }> {
  const work = await loadManagedWork(sql, viewer, reference);
  return { work, snapshot: workSnapshot(work) };
}
