import type { Sql } from "../core/db/connect-sql.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { readableRunSql } from "./readable-run-sql.ts";
import { RUN_COLUMNS, type RunRow, toVerificationRuns, type VerificationRun } from "./verification-run.ts";

export interface ListVerificationsInput {
  submission_id?: string | undefined;
  attempt_id?: string | undefined;
  /** A Problem id or slug. */
  problem?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * list_verifications: the runs the viewer may read, newest first, narrowed by Submission, Attempt
 * or Problem; keyset pages by (created_at, id), so runs created meanwhile never shift a page.
 */
export async function listVerifications(
  sql: Sql,
  viewer: Viewer,
  input: ListVerificationsInput,
  baseUrl: string,
  now: Date,
): Promise<{ verifications: VerificationRun[]; cursor: string | null }> {
  const fingerprint = cursorFingerprint({
    submission_id: input.submission_id ?? null,
    attempt_id: input.attempt_id ?? null,
    problem: input.problem ?? null,
  });
  const after = input.cursor ? decodeCursor(input.cursor, fingerprint, 2).k : null;
  const rows = await sql<(RunRow & { position: string })[]>`
    select ${sql.unsafe(RUN_COLUMNS)}, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as position
    from verification_runs r join submissions s on s.id = r.submission_id join problems p on p.id = s.problem_id
    where ${readableRunSql(sql, viewer)}
      ${input.submission_id ? sql`and r.submission_id = ${input.submission_id}` : sql``}
      ${input.attempt_id ? sql`and s.attempt_id = ${input.attempt_id}` : sql``}
      ${input.problem ? sql`and (p.id = ${input.problem} or p.slug = ${input.problem})` : sql``}
      ${after ? sql`and (to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), r.id) < (${String(after[0])}, ${String(after[1])})` : sql``}
    order by r.created_at desc, r.id desc
    limit ${input.limit + 1}`;
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const cursor =
    rows.length > input.limit && last ? encodeCursor({ k: [last.position, last.id], f: fingerprint }) : null;
  return { verifications: await toVerificationRuns(sql, page, baseUrl, { viewer, now }), cursor };
}
