import type { Sql } from "../core/db/connect-sql.ts";
import {
  ASSIGNMENT_COLUMNS,
  NODE_COLUMNS,
  PROCESS_COLUMNS,
  type ReviewAssignmentRow,
  type ReviewNodeRow,
  type ReviewProcessRow,
} from "./review-records.ts";

/** A process row, locked `for update` when asked (every write to a process takes this lock first). */
export async function readProcessRow(
  sql: Sql,
  processId: string,
  options: { lock?: boolean } = {},
): Promise<ReviewProcessRow | null> {
  const [row] = options.lock
    ? await sql<ReviewProcessRow[]>`
        select ${sql.unsafe(PROCESS_COLUMNS)} from review_processes where id = ${processId} for update`
    : await sql<ReviewProcessRow[]>`
        select ${sql.unsafe(PROCESS_COLUMNS)} from review_processes where id = ${processId}`;
  return row ?? null;
}

/** The process's node rows, in no particular order. */
export async function readNodeRows(sql: Sql, processId: string): Promise<ReviewNodeRow[]> {
  return await sql<ReviewNodeRow[]>`
    select ${sql.unsafe(NODE_COLUMNS)} from review_nodes where review_process_id = ${processId}`;
}

/** The process's assignments in the order they were taken (ties by id, so the order is total). */
export async function readAssignmentRows(sql: Sql, processId: string): Promise<ReviewAssignmentRow[]> {
  return await sql<ReviewAssignmentRow[]>`
    select ${sql.unsafe(ASSIGNMENT_COLUMNS)} from review_assignments where review_process_id = ${processId}
    order by claimed_at, id`;
}

/** One assignment, locked when asked. */
export async function readAssignmentRow(
  sql: Sql,
  assignmentId: string,
  options: { lock?: boolean } = {},
): Promise<ReviewAssignmentRow | null> {
  const [row] = options.lock
    ? await sql<ReviewAssignmentRow[]>`
        select ${sql.unsafe(ASSIGNMENT_COLUMNS)} from review_assignments where id = ${assignmentId} for update`
    : await sql<ReviewAssignmentRow[]>`
        select ${sql.unsafe(ASSIGNMENT_COLUMNS)} from review_assignments where id = ${assignmentId}`;
  return row ?? null;
}
