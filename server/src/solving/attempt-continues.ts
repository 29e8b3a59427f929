import type { RunStatus, SubmissionStatus } from "@svc/schemas";
import type { AttemptRow } from "../attempts/attempt.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { NOTE_COLUMNS, type Note, type NoteRow, toNote } from "../notes/note.ts";
import { type RunReader, readRunWithholding } from "../sealing/read-run-withholdings.ts";
import { type RunWithholding, withholdingNotice } from "../sealing/run-withholding.ts";
import { readContractTerms } from "../submissions/submission-requirements.ts";

/** A predecessor's Submission as `continues` reports it, with its latest run's result and evidence. */
export interface ContinuedSubmission {
  id: string;
  status: SubmissionStatus;
  created_at: string;
  artifacts: Array<{ role: string; artifact_id: string; content_hash: string; size_bytes: number }>;
  verification: {
    id: string;
    status: RunStatus;
    result: string | null;
    score: number | null;
    evidence_md: string;
    finished_at: string | null;
  } | null;
  /** `{status: "pending"}` while a review stage of the Contract has not finished; null otherwise. */
  review: { status: "pending" } | null;
}

/** start_attempt's `continues`: what the ended Attempt left for its continuation (spec 4.1). */
export interface Continues {
  attempt_id: string;
  outcome: string | null;
  ended_at: string | null;
  problem_revision_id: string;
  summary_note: Note | null;
  submissions: ContinuedSubmission[];
  /** Live Artifacts of the predecessor, which reuse_artifact can carry into the continuation. */
  artifacts: Array<{
    id: string;
    filename: string;
    media_type: string;
    size_bytes: number;
    content_hash: string;
  }>;
}

/**
 * The `continues` block of a continuation. Verification results come straight from
 * verification_runs (the latest run of each Submission). A review stage is `pending` while the
 * run has not finished and a review stage of its Contract has no finished result; review defects
 * themselves arrive with the review domain. A sealed evaluation withholds what the reader may
 * not see yet (final_only outcomes; evidence quoting protected stages).
 */
export async function attemptContinues(
  sql: Sql,
  predecessor: AttemptRow,
  reader: RunReader,
): Promise<Continues> {
  const withholding = await readRunWithholding(sql, reader, predecessor.problem_revision_id);
  const [summary] = await sql<NoteRow[]>`
    select ${sql.unsafe(NOTE_COLUMNS)} from notes n
    where n.attempt_id = ${predecessor.id} and n.kind = 'summary' order by n.created_at desc limit 1`;
  const submissions = await sql<
    {
      id: string;
      status: SubmissionStatus;
      created_at: Date;
      artifacts: ContinuedSubmission["artifacts"];
      run_id: string | null;
      run_status: RunStatus | null;
      result: string | null;
      score: number | null;
      evidence_md: string | null;
      finished_at: Date | null;
      verifier_contract_id: string | null;
      finished_review_stages: string[] | null;
    }[]
  >`
    select s.id, s.status, s.created_at, s.artifacts, r.id as run_id, r.status as run_status, r.result, r.score,
      r.evidence_md, r.finished_at, r.verifier_contract_id,
      (select array_agg(stage_key) from verification_stage_results
        where verification_run_id = r.id and kind = 'review' and status = 'finished') as finished_review_stages
    from submissions s
    left join lateral (
      select * from verification_runs where submission_id = s.id order by created_at desc, id desc limit 1
    ) r on true
    where s.attempt_id = ${predecessor.id}
    order by s.created_at, s.id`;
  const reviewStages = new Map<string, string[]>();
  for (const row of submissions) {
    const id = row.verifier_contract_id;
    if (id && !reviewStages.has(id)) {
      const terms = await readContractTerms(sql, id);
      reviewStages.set(id, terms?.stages.filter((s) => s.kind === "review").map((s) => s.key) ?? []);
    }
  }
  const artifacts = await sql<Continues["artifacts"]>`
    select id, filename, media_type, size_bytes::float8 as size_bytes, content_hash from artifacts
    where attempt_id = ${predecessor.id} and withdrawn_at is null order by created_at, id`;
  return {
    attempt_id: predecessor.id,
    outcome: predecessor.outcome,
    ended_at: predecessor.ended_at?.toISOString() ?? null,
    problem_revision_id: predecessor.problem_revision_id,
    summary_note: summary ? toNote(summary) : null,
    submissions: submissions.map((row) => {
      const stages = row.verifier_contract_id ? (reviewStages.get(row.verifier_contract_id) ?? []) : [];
      const finished = new Set(row.finished_review_stages ?? []);
      const reviewOpen = row.run_status !== "finished" && stages.some((key) => !finished.has(key));
      return {
        id: row.id,
        status: row.status,
        created_at: row.created_at.toISOString(),
        artifacts: row.artifacts,
        verification: row.run_id
          ? {
              id: row.run_id,
              status: row.run_status!,
              result: withholding.outcome ? null : row.result,
              score: withholding.outcome ? null : row.score,
              evidence_md: withheldEvidence(row.evidence_md ?? "", withholding),
              finished_at: row.finished_at?.toISOString() ?? null,
            }
          : null,
        review: row.run_id && reviewOpen ? { status: "pending" as const } : null,
      };
    }),
    artifacts: artifacts.map((a) => ({ ...a, size_bytes: Number(a.size_bytes) })),
  };
}

/** The run evidence a reader may see: it quotes every stage, protected ones included. */
function withheldEvidence(evidence: string, withholding: RunWithholding): string {
  if (evidence === "" || (!withholding.outcome && !withholding.protectedEvidence)) return evidence;
  return withholdingNotice(
    "Run evidence is",
    withholding.outcome ? withholding.outcomeReleaseAt : withholding.evidenceReleaseAt,
  );
}
