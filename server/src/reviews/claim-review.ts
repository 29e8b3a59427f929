import type { ProtocolNode } from "@svc/schemas";
import { IdPrefix } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { userCanReadReviewSubject } from "../visibility/review-subject-access.ts";
import { endClaimsWithoutAccess } from "./end-claims-without-access.ts";
import { reviewNodeState } from "./node-state.ts";
import { readAssignmentRows, readProcessRow } from "./read-process-rows.ts";
import { reviewerStanding } from "./review-eligibility.ts";
import { holdTimerKey, scheduleReviewTimer } from "./review-jobs.ts";
import {
  ASSIGNMENT_COLUMNS,
  type ReviewAssignmentRow,
  type ReviewNodeRow,
  type ReviewProcessRow,
} from "./review-records.ts";

const MINUTE_MS = 60_000;
/** spec 2.1 policy default. */
const DEFAULT_HOLD_MINUTES = 120;

/**
 * claim_review: takes a free seat of an open human review node for `userId`, held until
 * `now + claim_hold_minutes`. not_found when the user may not read the work under review (and
 * claims of reviewers who lost access end first, reopening their seats). Refused when the
 * process finished, the user may not review the
 * node (eligibility, conflicts; a submitter never reviews their own work), the node is not open
 * at `now` (pending, done, skipped or past its deadline), the user already submitted for it, or
 * no seat is free. Claiming again while holding a seat renews the hold and returns the same
 * assignment. Everything happens under the process row's lock, so concurrent claims of the last
 * seat give exactly one winner.
 */
export async function claimReview(
  services: Services,
  userId: string,
  input: { review_process_id: string; node_id: string },
): Promise<ReviewAssignmentRow> {
  await endClaimsWithoutAccess(services.sql, [input.review_process_id], services.clock());
  return await services.sql.begin(async (tx) => {
    const { process, node } = await lockProcessNode(tx, input.review_process_id, input.node_id, userId);
    const standing = await reviewerStanding(tx, userId, process, node);
    if (!standing.ok) {
      throw new ServiceError(standing.code, `you may not review node "${node.id}": ${standing.reason}`, {
        review_process_id: process.id,
        node_id: node.id,
      });
    }
    const now = services.clock();
    const [row] = await tx<ReviewNodeRow[]>`
      select * from review_nodes where review_process_id = ${process.id} and node_id = ${node.id}`;
    const assignments = (await readAssignmentRows(tx, process.id)).filter((a) => a.node_id === node.id);
    const state = reviewNodeState(row!, assignments, now);
    if (row!.status !== "open" || state.deadline_passed) {
      const status = row!.status === "open" ? "past its deadline" : row!.status;
      throw new ServiceError(
        "node_not_open",
        `node "${node.id}" is ${status} and takes no claims: look for an open seat with pick_review`,
        {
          review_process_id: process.id,
          node_id: node.id,
          status: row!.status,
          deadline_at: row!.deadline_at,
        },
      );
    }
    // Record the holds that have passed: reads already treat them as lapsed, and a lapsed claim
    // of this user must end before they may take a seat again.
    if (state.lapsed_ids.length > 0) {
      await tx`
        update review_assignments set status = 'lapsed', ended_at = hold_until
        where id = any(${state.lapsed_ids}) and status = 'claimed'`;
    }
    const holdUntil = new Date(
      now.getTime() +
        (process.protocol_snapshot.policy.claim_hold_minutes ?? DEFAULT_HOLD_MINUTES) * MINUTE_MS,
    );
    const mine = assignments.find(
      (a) =>
        a.reviewer_user_id === userId &&
        (a.status === "submitted" || (a.status === "claimed" && !state.lapsed_ids.includes(a.id))),
    );
    if (mine?.status === "submitted") {
      throw new ServiceError("seat_unavailable", `you already submitted a review for node "${node.id}"`, {
        review_process_id: process.id,
        node_id: node.id,
        assignment_id: mine.id,
      });
    }
    if (mine?.status === "claimed") {
      const [renewed] = await tx<ReviewAssignmentRow[]>`
        update review_assignments set hold_until = ${holdUntil} where id = ${mine.id}
        returning ${tx.unsafe(ASSIGNMENT_COLUMNS)}`;
      await scheduleReviewTimer(tx, process.id, holdTimerKey(mine.id), holdUntil);
      return renewed!;
    }
    if (state.open_seats === 0) {
      throw new ServiceError(
        "seat_unavailable",
        `every seat of node "${node.id}" is held or done; a held seat reopens if its claim lapses`,
        { review_process_id: process.id, node_id: node.id },
      );
    }
    const id = randomId(IdPrefix.reviewAssignment);
    const [created] = await tx<ReviewAssignmentRow[]>`
      insert into review_assignments
        (id, review_process_id, node_id, reviewer_kind, reviewer_user_id, skills_supplied, claimed_at, hold_until)
      values (${id}, ${process.id}, ${node.id}, 'human', ${userId},
        ${tx.json((node.skills ?? []) as unknown as postgres.JSONValue)}, ${now}, ${holdUntil})
      returning ${tx.unsafe(ASSIGNMENT_COLUMNS)}`;
    await scheduleReviewTimer(tx, process.id, holdTimerKey(id), holdUntil);
    return created!;
  });
}

/**
 * Locks an open process and finds its node for `userId`: not_found when it does not exist or
 * the user may not read the work it reviews (the same answer), process_finished once it ended.
 */
export async function lockProcessNode(
  tx: Sql,
  processId: string,
  nodeId: string,
  userId: string,
): Promise<{ process: ReviewProcessRow; node: ProtocolNode }> {
  const process = await readProcessRow(tx, processId, { lock: true });
  if (!process || !(await userCanReadReviewSubject(tx, userId, processId))) {
    throw new ServiceError("not_found", `no review process has the id "${processId}"`, {
      field: "review_process_id",
      review_process_id: processId,
    });
  }
  const node = process.protocol_snapshot.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) {
    throw new ServiceError("not_found", `review process ${processId} has no node "${nodeId}"`, {
      field: "node_id",
      review_process_id: processId,
      node_id: nodeId,
    });
  }
  if (process.status === "finished") {
    throw new ServiceError(
      "process_finished",
      `review process ${processId} has finished (${process.end_reason})`,
      {
        review_process_id: processId,
        end_reason: process.end_reason,
      },
    );
  }
  return { process, node };
}
