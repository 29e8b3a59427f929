import type { SubmissionStatus } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { type RunReader, readRunWithholdings } from "../sealing/read-run-withholdings.ts";
import type { RunWithholding } from "../sealing/run-withholding.ts";
import type { Submission, SubmissionArtifact, SubmissionVerification } from "./submission.ts";

interface SubmissionRow {
  id: string;
  attempt_id: string;
  user_id: string;
  problem_id: string;
  problem_revision_id: string;
  artifacts: SubmissionArtifact[];
  status: SubmissionStatus;
  created_at: Date;
  withdrawn_at: Date | null;
  /** Its revision has a sealing policy: only then can anything of its runs be withheld. */
  sealed: boolean;
  runs: Array<{
    id: string;
    status: SubmissionVerification["status"];
    result: SubmissionVerification["result"];
    score: number | null;
    created_at: string;
    finished_at: string | null;
    revoked: boolean;
  }>;
}

/** Which Submissions to read; exactly one filter is meant to be set. */
export interface SubmissionFilter {
  id?: string;
  attemptId?: string;
  /** Several Attempts' Submissions in one query (a dashboard page), with `userId` as their owner. */
  attemptIds?: readonly string[];
  /** With `userId`: that user's Submissions on the Problem. */
  problemId?: string;
  userId?: string;
}

/**
 * Submissions with their runs (latest first), oldest Submission first, as `reader` may see them
 * (a final_only sealed evaluation withholds the latest run's result and score). Runs come straight
 * from verification_runs, so a run the integrator's worker finishes shows here at once.
 */
export async function readSubmissions(
  sql: Sql,
  filter: SubmissionFilter,
  reader: RunReader,
): Promise<Submission[]> {
  const conditions: postgres.Fragment[] = [];
  if (filter.id !== undefined) conditions.push(sql`s.id = ${filter.id}`);
  if (filter.attemptId !== undefined) conditions.push(sql`s.attempt_id = ${filter.attemptId}`);
  if (filter.attemptIds !== undefined)
    conditions.push(sql`s.attempt_id = any(${filter.attemptIds as string[]})`);
  if (filter.problemId !== undefined) conditions.push(sql`s.problem_id = ${filter.problemId}`);
  if (filter.userId !== undefined) conditions.push(sql`s.user_id = ${filter.userId}`);
  if (conditions.length === 0) throw new Error("readSubmissions needs a filter");
  const where = conditions.reduce((all, next) => sql`${all} and ${next}`);
  const rows = await sql<SubmissionRow[]>`
    select s.id, s.attempt_id, s.user_id, s.problem_id, s.problem_revision_id, s.artifacts, s.status,
      s.created_at, s.withdrawn_at,
      exists (select 1 from problem_revisions pr where pr.id = s.problem_revision_id and pr.sealing is not null) as sealed,
      coalesce((select jsonb_agg(jsonb_build_object('id', r.id, 'status', r.status, 'result', r.result,
          'score', r.score, 'created_at', r.created_at, 'finished_at', r.finished_at,
          'revoked', r.revocation is not null)
          order by r.created_at desc, r.id desc)
        from verification_runs r where r.submission_id = s.id), '[]'::jsonb) as runs
    from submissions s where ${where}
    order by s.created_at, s.id`;
  // An unsealed revision withholds nothing (readRunWithholdings says so too): no query for it.
  const withholdings = await readRunWithholdings(
    sql,
    reader,
    rows.filter((row) => row.sealed).map((row) => row.problem_revision_id),
  );
  return rows.map((row) => withholdOutcome(toSubmission(row), withholdings.get(row.problem_revision_id)));
}

/**
 * A Submission its creating statement just wrote, as readSubmissions would read it in that
 * transaction, without reading it again: its run, if any, is `queued`, so nothing of it can be
 * withheld yet.
 */
export function createdSubmission(
  row: Omit<SubmissionRow, "sealed" | "runs">,
  run: { id: string; created_at: Date } | null,
): Submission {
  return toSubmission({
    ...row,
    sealed: false,
    runs:
      run === null
        ? []
        : [
            {
              id: run.id,
              status: "queued",
              result: null,
              score: null,
              created_at: run.created_at.toISOString(),
              finished_at: null,
              revoked: false,
            },
          ],
  });
}

/** The latest run's result and score hidden while the evaluation withholds outcomes (final_only). */
function withholdOutcome(submission: Submission, withholding: RunWithholding | undefined): Submission {
  const latest = submission.latest_verification;
  if (!latest || !withholding?.outcome) return submission;
  return { ...submission, latest_verification: { ...latest, result: null, score: null } };
}

function toSubmission(row: SubmissionRow): Submission {
  // Spec 2.4: a revoked run stops contributing to the verdict; it stays in verification_run_ids.
  const latest = row.runs.find((run) => !run.revoked);
  return {
    id: row.id,
    attempt_id: row.attempt_id,
    user_id: row.user_id,
    problem_id: row.problem_id,
    problem_revision_id: row.problem_revision_id,
    artifacts: row.artifacts,
    status: row.status,
    created_at: row.created_at.toISOString(),
    withdrawn_at: row.withdrawn_at?.toISOString() ?? null,
    verification_run_ids: row.runs.map((run) => run.id),
    latest_verification: latest
      ? {
          id: latest.id,
          status: latest.status,
          result: latest.result,
          score: latest.score,
          created_at: new Date(latest.created_at).toISOString(),
          finished_at: latest.finished_at ? new Date(latest.finished_at).toISOString() : null,
        }
      : null,
  };
}
