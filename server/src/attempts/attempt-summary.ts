import type { AttemptStatus, RunResult, RunStatus } from "@svc/schemas";
import type postgres from "postgres";
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

/** attemptSummarySql's value, as PostgreSQL's JSON writes it (timestamps as ISO strings). */
export interface AttemptSummaryJson {
  submissions: number;
  /** Timestamps as PostgreSQL writes them; toAttemptSummary writes them as the API does. */
  attempts: Array<NonNullable<AttemptSummary["latest_attempt"]>>;
  /** The run's revision, for the withholding of sealed work. */
  run: (LatestVerification & { problem_revision_id: string }) | null;
}

/**
 * The user's own work on the Problem `problemId` names, as one jsonb value, so a read of the
 * Problem carries it in the same statement (on this service's hosts a round trip costs more than
 * these index reads: docs/operations.md, "Where the time goes: MCP and search"): the count of
 * active Submissions, every Attempt newest first, and the newest unrevoked run of any Submission.
 * A Submission belongs to an Attempt of the same user and Problem (create-submission.ts), so a
 * reader without an Attempt there (most reads) costs one index probe instead of three.
 */
export function attemptSummarySql(sql: Sql, userId: string | null, problemId: postgres.Fragment) {
  return sql`(case when not exists (
      select 1 from attempts where user_id = ${userId} and problem_id = ${problemId})
    then '{"submissions": 0, "attempts": [], "run": null}'::jsonb
    else jsonb_build_object(
    'submissions', (
      select count(*)::int from submissions
      where user_id = ${userId} and problem_id = ${problemId} and status = 'active'),
    'attempts', (
      select coalesce(jsonb_agg(jsonb_build_object(
          'id', id, 'status', status, 'outcome', outcome, 'problem_revision_id', problem_revision_id,
          'started_at', started_at, 'ended_at', ended_at) order by started_at desc, id desc), '[]')
      from attempts where user_id = ${userId} and problem_id = ${problemId}),
    'run', (
      select jsonb_build_object(
          'verification_run_id', r.id, 'submission_id', r.submission_id, 'status', r.status, 'result', r.result,
          'score', r.score, 'created_at', r.created_at, 'finished_at', r.finished_at,
          'problem_revision_id', r.problem_revision_id)
      from verification_runs r join submissions s on s.id = r.submission_id
      where s.user_id = ${userId} and s.problem_id = ${problemId} and r.revocation is null
      order by r.created_at desc, r.id desc limit 1)) end)`;
}

/**
 * The summary of the reader's own work from attemptSummarySql's value; a sealed final_only
 * evaluation withholds the latest run's result and score until score release.
 */
export async function toAttemptSummary(
  sql: Sql,
  reader: RunReader,
  json: AttemptSummaryJson,
): Promise<AttemptSummary> {
  const { run, attempts } = json;
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
          started_at: isoTime(latest.started_at),
          ended_at: latest.ended_at === null ? null : isoTime(latest.ended_at),
        }
      : null,
    submissions: json.submissions,
    latest_verification: run
      ? {
          verification_run_id: run.verification_run_id,
          submission_id: run.submission_id,
          status: run.status,
          ...(withheld ? { result: null, score: null } : { result: run.result, score: run.score }),
          created_at: isoTime(run.created_at),
          finished_at: run.finished_at === null ? null : isoTime(run.finished_at),
        }
      : null,
  };
}

/** A JSON timestamp (microseconds, `+00:00`) as every other time in the API: milliseconds, `Z`. */
function isoTime(value: string): string {
  return new Date(value).toISOString();
}

/** The summary of the reader's own work on `problemId`, read alone. */
export async function attemptSummary(
  sql: Sql,
  reader: RunReader,
  problemId: string,
): Promise<AttemptSummary> {
  const [row] = await sql<{ summary: AttemptSummaryJson }[]>`
    select ${attemptSummarySql(sql, reader.viewer.userId, sql`${problemId}`)} as summary`;
  return toAttemptSummary(sql, reader, row!.summary);
}
