import type { Sql } from "../core/db/connect-sql.ts";

/** Where a run sits, for the links on its page: its Problem, revision, Attempt and reviews. */
export interface RunLinks {
  problem_slug: string;
  revision_number: number;
  attempt_id: string;
  /** The Problem ranks scores (a BENCHMARK, or a Contract whose result is a score): it has a leaderboard. */
  scored: boolean;
  /** The review processes of the run's review stages, in stage order of creation. */
  review_processes: Array<{ id: string; stage_key: string }>;
}

/**
 * The records a run's page links to, read in one statement. Only for a run the reader may
 * already open (the caller has read it through getVerification): every id here is the run's own
 * Submission's, Problem's or review processes', which that reader may follow.
 */
export async function readRunLinks(sql: Sql, runId: string): Promise<RunLinks | null> {
  const [row] = await sql<RunLinks[]>`
    select p.slug as problem_slug, pr.revision_number, s.attempt_id,
      (p.structure = 'BENCHMARK' or coalesce(vc.document->>'result_kind', '') = 'score') as scored,
      coalesce((select json_agg(json_build_object('id', rp.id, 'stage_key', rp.stage_key) order by rp.created_at)
        from review_processes rp where rp.verification_run_id = r.id), '[]'::json) as review_processes
    from verification_runs r
    join submissions s on s.id = r.submission_id
    join problems p on p.id = s.problem_id
    join problem_revisions pr on pr.id = r.problem_revision_id
    left join verifier_contracts vc on vc.id = r.verifier_contract_id
    where r.id = ${runId}`;
  return row ?? null;
}
