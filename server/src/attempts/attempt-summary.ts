import type { AttemptStatus, RunResult, RunStatus } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { type RunReader, readRunWithholding } from "../sealing/read-run-withholdings.ts";

/** The latest VerificationRun of the caller's Submissions on a Problem, as a summary reports it. */
export interface LatestVerification {
  verification_run_id: string;
  submission_id: string;
  status: RunStatus;
  result: RunResult | null;
  score: number | null;
  created_at: string;
  finished_at: string | null;
}

/**
 * get_problem's `attempt_summary`: the caller's own Attempts on the Problem, on any revision.
 * `active_attempt_ids` lists the active ones newest first; `submissions` counts Submissions not
 * withdrawn; `latest_verification` is the newest run of any of them that is not revoked
 * (spec 2.4: a revoked run stops contributing to the verdict).
 */
export interface AttemptSummary {
  attempts: number;
  active_attempts: number;
  active_attempt_ids: string[];
  latest_attempt: {
    id: string;
    status: AttemptStatus;
    outcome: string | null;
    problem_revision_id: string;
    started_at: string;
    ended_at: string | null;
  } | null;
  submissions: number;
  latest_verification: LatestVerification | null;
}

/**
 * The summary of the reader's own work on `problemId`; a sealed final_only evaluation withholds
 * the latest run's result and score until score release.
 */
export async function attemptSummary(
  sql: Sql,
  reader: RunReader,
  problemId: string,
): Promise<AttemptSummary> {
  const userId = reader.viewer.userId;
  // One statement, not three: on this service's hosts a round trip costs more than these index
  // reads (docs/operations.md, "Where the time goes: MCP and search"). It yields one row per
  // Attempt, newest first (one row with null Attempt columns when there is none), each carrying
  // the count of active Submissions and the newest unrevoked run of any of them.
  const rows = await sql<
    {
      submissions: number;
      attempt_id: string | null;
      attempt_status: AttemptStatus;
      attempt_outcome: string | null;
      attempt_revision_id: string;
      attempt_started_at: Date;
      attempt_ended_at: Date | null;
      run_id: string | null;
      run_submission_id: string;
      run_status: RunStatus;
      run_result: RunResult | null;
      run_score: number | null;
      run_created_at: Date;
      run_finished_at: Date | null;
      run_revision_id: string;
    }[]
  >`
    select counts.submissions, a.*, run.*
    from (
      select count(*)::int as submissions from submissions
      where user_id = ${userId} and problem_id = ${problemId} and status = 'active'
    ) counts
    left join lateral (
      select r.id as run_id, r.submission_id as run_submission_id, r.status as run_status,
        r.result as run_result, r.score as run_score, r.created_at as run_created_at,
        r.finished_at as run_finished_at, r.problem_revision_id as run_revision_id
      from verification_runs r join submissions s on s.id = r.submission_id
      where s.user_id = ${userId} and s.problem_id = ${problemId} and r.revocation is null
      order by r.created_at desc, r.id desc limit 1
    ) run on true
    left join lateral (
      select id as attempt_id, status as attempt_status, outcome as attempt_outcome,
        problem_revision_id as attempt_revision_id, started_at as attempt_started_at,
        ended_at as attempt_ended_at
      from attempts where user_id = ${userId} and problem_id = ${problemId}
    ) a on true
    order by a.attempt_started_at desc, a.attempt_id desc`;
  const first = rows[0]!;
  const attempts = rows.filter((row) => row.attempt_id !== null);
  const run = first.run_id === null ? null : first;
  const withheld = run ? (await readRunWithholding(sql, reader, run.run_revision_id)).outcome : false;
  const latest = attempts[0];
  const active = attempts.filter((a) => a.attempt_status === "active");
  return {
    attempts: attempts.length,
    active_attempts: active.length,
    active_attempt_ids: active.map((a) => a.attempt_id!),
    latest_attempt: latest
      ? {
          id: latest.attempt_id!,
          status: latest.attempt_status,
          outcome: latest.attempt_outcome,
          problem_revision_id: latest.attempt_revision_id,
          started_at: latest.attempt_started_at.toISOString(),
          ended_at: latest.attempt_ended_at?.toISOString() ?? null,
        }
      : null,
    submissions: first.submissions,
    latest_verification: run
      ? {
          verification_run_id: run.run_id!,
          submission_id: run.run_submission_id,
          status: run.run_status,
          ...(withheld ? { result: null, score: null } : { result: run.run_result, score: run.run_score }),
          created_at: run.run_created_at.toISOString(),
          finished_at: run.run_finished_at?.toISOString() ?? null,
        }
      : null,
  };
}
