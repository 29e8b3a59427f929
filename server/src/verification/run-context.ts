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
  /** With verifier_input_bindings, as read null on all rows but one of each Contract (shareContexts). */
  document: VerifierContractFile;
  verifier_input_bindings: RevisionBinding[];
}

/**
 * Fills in, on selectRunContext's rows, the document and bindings each row shares with another
 * (selectRunContext sends them on one row of each Contract and revision, null on the others).
 */
export function shareContexts(rows: RunContextRow[]): void {
  const documents = new Map<string, VerifierContractFile>();
  const bindings = new Map<string, RevisionBinding[]>();
  for (const row of rows) {
    if (row.document !== null) documents.set(row.verifier_contract_id, row.document);
    if (row.verifier_input_bindings !== null)
      bindings.set(row.problem_revision_id, row.verifier_input_bindings);
  }
  for (const row of rows) {
    row.document ??= documents.get(row.verifier_contract_id)!;
    row.verifier_input_bindings ??= bindings.get(row.problem_revision_id)!;
  }
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
 * The Contract's document and the revision's bindings come once per Contract and revision, on
 * the row of the lowest run id; shareContexts gives them to the other rows. A batch's runs share
 * one Contract (executeVerificationRuns), and its document (1.8 kB for a builtin SAT check) was
 * decompressed, printed, sent and parsed for every run: 0.24 ms of PostgreSQL per batch of 31.
 */
export function selectRunContext(
  sql: Sql,
  runs: postgres.PendingQuery<postgres.Row[]>,
): postgres.PendingQuery<postgres.Row[]> {
  return sql`
    select r.*, s.user_id, s.attempt_id, s.problem_id,
      case when row_number() over (partition by r.verifier_contract_id order by r.id) = 1 then vc.document end
        as document,
      case when row_number() over (partition by r.problem_revision_id order by r.id) = 1 then pr.verifier_input_bindings end
        as verifier_input_bindings,
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
