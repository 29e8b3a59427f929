import type { StageResult } from "@svc/app";
import type { RunStatus, RunTrigger, StageKind } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { type RunReader, readRunWithholdings } from "../sealing/read-run-withholdings.ts";
import { NOTHING_WITHHELD, withholdRun } from "../sealing/run-withholding.ts";
import type { RunArtifact } from "./queue-verification-run.ts";
import { hasMechanism, type StageLog, type StageMechanism } from "./stage-record.ts";

/** `log` as records show it: the stored fields plus where to read the bytes. */
export interface StageLogRecord extends StageLog {
  resource_uri: string;
  url: string;
}

/** One stage_results item (spec 2.4). */
export interface StageResultRecord {
  stage_key: string;
  kind: StageKind;
  status: RunStatus;
  result: StageResult | null;
  evidence_md: string;
  mechanism: StageMechanism;
  log: StageLogRecord | null;
  started_at: string | null;
  finished_at: string | null;
}

/** The VerificationRun record (spec 2.4, schema 0.4.0): exactly its fields. */
export interface VerificationRun {
  id: string;
  submission_id: string;
  problem_revision_id: string;
  verifier_contract_id: string;
  trigger: RunTrigger;
  inputs: { artifacts: RunArtifact[]; summary_included: boolean };
  stage_results: StageResultRecord[];
  status: RunStatus;
  result: StageResult | null;
  score: number | null;
  evidence_md: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** `revoked_by_user_id` null: an operator with svc-server. */
  revocation: { revoked_at: string; revoked_by_user_id: string | null; reason_md: string } | null;
}

export interface RunRow {
  id: string;
  submission_id: string;
  problem_revision_id: string;
  verifier_contract_id: string;
  trigger: RunTrigger;
  inputs: VerificationRun["inputs"];
  status: RunStatus;
  result: StageResult | null;
  score: number | null;
  evidence_md: string;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  revocation: VerificationRun["revocation"];
}

interface StageRow {
  verification_run_id: string;
  stage_key: string;
  kind: StageKind;
  status: RunStatus;
  result: StageResult | null;
  evidence_md: string;
  mechanism: StageMechanism | null;
  log: StageLog | null;
  started_at: Date | null;
  finished_at: Date | null;
}

/** The columns RunRow reads, for queries that select runs. */
export const RUN_COLUMNS = `r.id, r.submission_id, r.problem_revision_id, r.verifier_contract_id, r.trigger, r.inputs,
  r.status, r.result, r.score, r.evidence_md, r.created_at, r.started_at, r.finished_at, r.revocation`;

/** The log's MCP resource URI (spec 4.1). */
export function stageLogUri(runId: string, stageKey: string): string {
  return `svc://verifications/${runId}/stages/${stageKey}/log`;
}

/**
 * Assembles records from run rows, reading their stage results in one query, as `reader` may see
 * them: on sealed evaluations withheld outcomes and protected evidence are replaced (withholdRun);
 * the stored rows stay intact.
 */
export async function toVerificationRuns(
  sql: Sql,
  rows: readonly RunRow[],
  baseUrl: string,
  reader: RunReader,
): Promise<VerificationRun[]> {
  if (rows.length === 0) return [];
  const stages = await sql<StageRow[]>`
    select verification_run_id, stage_key, kind, status, result, evidence_md, mechanism, log, started_at, finished_at
    from verification_stage_results where verification_run_id = any(${rows.map((row) => row.id)})
    order by verification_run_id, position`;
  const byRun = new Map<string, StageResultRecord[]>();
  for (const stage of stages) {
    // stage_results lists the stages attempted: those whose mechanism is fixed (stage-record.ts).
    if (!hasMechanism(stage.mechanism)) continue;
    const list = byRun.get(stage.verification_run_id) ?? [];
    list.push({
      stage_key: stage.stage_key,
      kind: stage.kind,
      status: stage.status,
      result: stage.result,
      evidence_md: stage.evidence_md,
      mechanism: stage.mechanism,
      log: stage.log
        ? {
            ...stage.log,
            resource_uri: stageLogUri(stage.verification_run_id, stage.stage_key),
            url: `${baseUrl}/verifications/${stage.verification_run_id}/stages/${stage.stage_key}/log`,
          }
        : null,
      started_at: stage.started_at?.toISOString() ?? null,
      finished_at: stage.finished_at?.toISOString() ?? null,
    });
    byRun.set(stage.verification_run_id, list);
  }
  const withholdings = await readRunWithholdings(
    sql,
    reader,
    rows.map((row) => row.problem_revision_id),
  );
  const records = rows.map((row) => ({
    id: row.id,
    submission_id: row.submission_id,
    problem_revision_id: row.problem_revision_id,
    verifier_contract_id: row.verifier_contract_id,
    trigger: row.trigger,
    inputs: row.inputs,
    stage_results: byRun.get(row.id) ?? [],
    status: row.status,
    result: row.result,
    score: row.score,
    evidence_md: row.evidence_md,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
    revocation: row.revocation,
  }));
  return records.map((run) =>
    withholdRun(run, withholdings.get(run.problem_revision_id) ?? NOTHING_WITHHELD),
  );
}
