import type { VerifierContractFile } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import type { RunArtifact } from "./queue-verification-run.ts";

/** A stored reference binding of the run's revision (spec 2.3). */
export interface RevisionBinding {
  key: string;
  content_hash: string;
  size_bytes: number;
  media_type: string;
  filename?: string;
  url?: string;
}

/** A Submission artifact with what the sandbox mounts it as. */
export interface ContextArtifact extends RunArtifact {
  filename: string;
  media_type: string;
}

/** Everything executing a run reads once: the Contract, the revision's bindings, the inputs. */
export interface RunContext {
  run_id: string;
  /** The submitter: whose work the run is, for the sandbox budget's per-user cap. */
  user_id: string;
  submission_id: string;
  attempt_id: string;
  problem_id: string;
  problem_revision_id: string;
  verifier_contract_id: string;
  contract: VerifierContractFile;
  bindings: RevisionBinding[];
  artifacts: ContextArtifact[];
}

/** What selectRunContext returns for each run: the run's own columns (`r.*`) and its context's. */
export interface RunContextRow {
  id: string;
  submission_id: string;
  attempt_id: string;
  problem_id: string;
  files: Array<{ id: string; filename: string; media_type: string }>;
  user_id: string;
  problem_revision_id: string;
  verifier_contract_id: string;
  inputs: { artifacts: RunArtifact[] };
  document: VerifierContractFile;
  verifier_input_bindings: RevisionBinding[];
}

/**
 * The select of the context of each run in `runs` (a subquery or a CTE of the caller's statement
 * holding run rows, with at least their `verification_runs` columns of the context), so a
 * statement that changes a run can read its context in the same round trip. It returns `r.*`.
 * Each artifact is looked up by its id alone, a subquery per element of the run's inputs: joined
 * to the jsonb array (`in (select ...)`, or `= any(array(...))` as before), PostgreSQL guessed
 * ten or a hundred ids and, below a few thousand artifacts, scanned the whole table for every run
 * (0.06 ms per run at 1,000 artifacts, a quarter of the statement that starts a batch; 0.01 ms
 * this way at any size). `offset 0` keeps the subquery from being inlined twice, once for the
 * filter that drops an artifact that is gone (runContext then says which).
 */
export function selectRunContext(
  sql: Sql,
  runs: postgres.PendingQuery<postgres.Row[]>,
): postgres.PendingQuery<postgres.Row[]> {
  return sql`
    select r.*, s.user_id, s.attempt_id, s.problem_id, vc.document, pr.verifier_input_bindings,
      coalesce((select json_agg(file) from (
                  select (select json_build_object('id', a.id, 'filename', a.filename, 'media_type', a.media_type)
                          from artifacts a where a.id = x->>'artifact_id') as file
                  from jsonb_array_elements(r.inputs->'artifacts') x offset 0) files
                where file is not null), '[]') as files
    from ${runs} r
    join submissions s on s.id = r.submission_id
    join verifier_contracts vc on vc.id = r.verifier_contract_id
    join problem_revisions pr on pr.id = r.problem_revision_id`;
}

/** A row of selectRunContext as the RunContext it describes. */
export function runContext(row: RunContextRow): RunContext {
  const runId = row.id;
  const byId = new Map(row.files.map((file) => [file.id, file]));
  return {
    run_id: runId,
    user_id: row.user_id,
    submission_id: row.submission_id,
    attempt_id: row.attempt_id,
    problem_id: row.problem_id,
    problem_revision_id: row.problem_revision_id,
    verifier_contract_id: row.verifier_contract_id,
    contract: row.document,
    bindings: row.verifier_input_bindings,
    artifacts: row.inputs.artifacts.map((artifact) => {
      const file = byId.get(artifact.artifact_id);
      if (!file) throw new Error(`run ${runId} names artifact ${artifact.artifact_id}, which does not exist`);
      return { ...artifact, filename: file.filename, media_type: file.media_type };
    }),
  };
}
