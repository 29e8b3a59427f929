import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../../core/db/connect-sql.ts";
import type { Services } from "../../core/services/services.ts";
import { canReadReviewSubject } from "../../visibility/review-subject-access.ts";
import type { Viewer } from "../../visibility/viewer.ts";
import { endClaimsWithoutAccess } from "../end-claims-without-access.ts";
import { readAssignmentRows, readNodeRows, readProcessRow } from "../read-process-rows.ts";
import type { ReviewAssignmentRow, ReviewNodeRow, ReviewProcessRow } from "../review-records.ts";

const PROCESS_ID = idPattern(IdPrefix.reviewProcess);

/** A process with every node and assignment, as stored; what the read models project. */
export interface LoadedReviewProcess {
  process: ReviewProcessRow;
  /** In protocol order. */
  nodes: ReviewNodeRow[];
  /** Oldest claim first. */
  assignments: ReviewAssignmentRow[];
  /** The submitter's handle, for readers allowed to see who submitted. */
  submitterHandle: string;
  /** Who manages the subject: the Problem's owner, else the Campaign's (proposals). */
  managerUserId: string | null;
}

/** The process with this id and everything under it, or null (a malformed id is simply unknown). */
export async function loadReviewProcess(sql: Sql, processId: string): Promise<LoadedReviewProcess | null> {
  if (!PROCESS_ID.test(processId)) return null;
  const process = await readProcessRow(sql, processId);
  if (!process) return null;
  const nodes = await readNodeRows(sql, processId);
  const order = new Map(process.protocol_snapshot.nodes.map((node, index) => [node.id, index]));
  nodes.sort((a, b) => (order.get(a.node_id) ?? 0) - (order.get(b.node_id) ?? 0));
  const assignments = await readAssignmentRows(sql, processId);
  const [people] = await sql<{ handle: string; manager_user_id: string | null }[]>`
    select u.handle,
      coalesce((select owner_user_id from problems where id = ${process.problem_id}),
        (select owner_user_id from campaigns where id = ${process.campaign_id})) as manager_user_id
    from users u where u.id = ${process.subject_user_id}`;
  return {
    process,
    nodes,
    assignments,
    submitterHandle: people?.handle ?? "",
    managerUserId: people?.manager_user_id ?? null,
  };
}

/**
 * The process when the viewer may read the work it reviews, else null (unknown and invisible are
 * the same). Every review door reads through this: first the claims of reviewers who lost access
 * end (end-claims-without-access.ts), so what it returns shows their seats open again.
 */
export async function loadReadableReviewProcess(
  services: Services,
  viewer: Viewer,
  processId: string,
): Promise<LoadedReviewProcess | null> {
  if (!PROCESS_ID.test(processId)) return null;
  await endClaimsWithoutAccess(services.sql, [processId], services.clock());
  if (!(await canReadReviewSubject(services.sql, viewer, processId))) return null;
  return await loadReviewProcess(services.sql, processId);
}
