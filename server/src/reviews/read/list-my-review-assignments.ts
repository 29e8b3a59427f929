import type { AssignmentStatus } from "@svc/schemas";
import { IdPrefix, idPattern } from "@svc/schemas";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { readableReviewSubjectSql } from "../../visibility/review-subject-access.ts";
import type { Viewer } from "../../visibility/viewer.ts";
import { ASSIGNMENT_COLUMNS, type ReviewAssignmentRow } from "../review-records.ts";
import { type ReviewAssignmentView, toAssignmentView } from "./review-assignment-view.ts";

/** list_my_review_assignments' input. */
export interface ListMyReviewAssignmentsInput {
  /** Only assignments in this state at the service clock. */
  status?: AssignmentStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * The caller's own assignments on work they may still read, newest claim first, each with its
 * case_url and assignment_url.
 * The caller sees their own judgments; nothing of other reviewers is included. `status` filters
 * on the state at the service clock (a claim past its hold is `lapsed`).
 */
export async function listMyReviewAssignments(
  services: Services,
  viewer: Viewer,
  input: ListMyReviewAssignmentsInput,
  baseUrl: string,
): Promise<{ assignments: ReviewAssignmentView[]; next_cursor: string | null }> {
  const { sql } = services;
  const now = services.clock();
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const status = input.status;
  const rows = await sql<Array<ReviewAssignmentRow & { node_completed: boolean }>>`
    select ${sql.unsafe(
      ASSIGNMENT_COLUMNS.split(", ")
        .map((c) => `a.${c}`)
        .join(", "),
    )}, n.status = 'completed' as node_completed
    from review_assignments a
    join review_nodes n on n.review_process_id = a.review_process_id and n.node_id = a.node_id
    join review_processes rp on rp.id = a.review_process_id
    where a.reviewer_user_id = ${viewer.userId} and ${readableReviewSubjectSql(sql, viewer)}
      ${after ? sql`and (a.claimed_at, a.id) < (${after.claimedAt}, ${after.id})` : sql``}
      ${
        status === "lapsed"
          ? sql`and (a.status = 'lapsed' or (a.status = 'claimed' and a.hold_until <= ${now}))`
          : status === "claimed"
            ? sql`and a.status = 'claimed' and (a.hold_until is null or a.hold_until > ${now})`
            : status
              ? sql`and a.status = ${status}`
              : sql``
      }
    order by a.claimed_at desc, a.id desc
    limit ${input.limit + 1}`;
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    assignments: page.map(({ node_completed, ...row }) =>
      toAssignmentView(row as ReviewAssignmentRow, viewer.userId, {
        now,
        baseUrl,
        nodeCompleted: node_completed,
        showReviewer: false,
      }),
    ),
    next_cursor: rows.length > input.limit && last ? encodeCursor(last.claimed_at, last.id) : null,
  };
}

function encodeCursor(claimedAt: Date, id: string): string {
  return Buffer.from(`${claimedAt.toISOString()}|${id}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { claimedAt: Date; id: string } {
  const [at = "", id = ""] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const claimedAt = new Date(at);
  if (Number.isNaN(claimedAt.getTime()) || !idPattern(IdPrefix.reviewAssignment).test(id)) {
    throw new ServiceError(
      "invalid_input",
      "cursor is not one this listing returned: pass next_cursor as given",
      {
        cursor,
      },
    );
  }
  return { claimedAt, id };
}
