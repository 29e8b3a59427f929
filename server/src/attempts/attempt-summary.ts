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
  const attempts = await sql<
    {
      id: string;
      status: AttemptStatus;
      outcome: string | null;
      problem_revision_id: string;
      started_at: Date;
      ended_at: Date | null;
    }[]
  >`
    select id, status, outcome, problem_revision_id, started_at, ended_at from attempts
    where user_id = ${userId} and problem_id = ${problemId}
    order by started_at desc, id desc`;
  const [counts] = await sql<{ submissions: number }[]>`
    select count(*)::int as submissions from submissions
    where user_id = ${userId} and problem_id = ${problemId} and status = 'active'`;
  const [run] = await sql<
    (Omit<LatestVerification, "created_at" | "finished_at"> & {
      created_at: Date;
      finished_at: Date | null;
      problem_revision_id: string;
    })[]
  >`
    select r.id as verification_run_id, r.submission_id, r.status, r.result, r.score, r.created_at, r.finished_at,
      r.problem_revision_id
    from verification_runs r join submissions s on s.id = r.submission_id
    where s.user_id = ${userId} and s.problem_id = ${problemId} and r.revocation is null
    order by r.created_at desc, r.id desc limit 1`;
  const withheld = run ? (await readRunWithholding(sql, reader, run.problem_revision_id)).outcome : false;
  const latest = attempts[0];
  const active = attempts.filter((a) => a.status === "active");
  return {
    attempts: attempts.length,
    active_attempts: active.length,
    active_attempt_ids: active.map((a) => a.id),
    latest_attempt: latest
      ? {
          id: latest.id,
          status: latest.status,
          outcome: latest.outcome,
          problem_revision_id: latest.problem_revision_id,
          started_at: latest.started_at.toISOString(),
          ended_at: latest.ended_at?.toISOString() ?? null,
        }
      : null,
    submissions: counts?.submissions ?? 0,
    latest_verification: run
      ? {
          verification_run_id: run.verification_run_id,
          submission_id: run.submission_id,
          status: run.status,
          ...(withheld ? { result: null, score: null } : { result: run.result, score: run.score }),
          created_at: run.created_at.toISOString(),
          finished_at: run.finished_at?.toISOString() ?? null,
        }
      : null,
  };
}
