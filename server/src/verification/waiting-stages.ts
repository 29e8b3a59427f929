import type { RunStatus, StageKind } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

/** A stage the record cannot list yet: no mechanism is fixed, and it has not finished. */
export interface WaitingStage {
  stage_key: string;
  kind: StageKind;
  status: RunStatus;
  /** Why it waits: an image provisioning, conformance still running, an attestation due by a time. */
  evidence_md: string;
}

/**
 * The run's stages that wait without a mechanism (stage-record.ts): a VerificationRun record lists
 * only the stages attempted, so what it cannot hold travels beside it (decisions.md, "Verifiable
 * verdicts"): in get_verification's envelope and on the run page. No outcome is among them; a
 * stage that ended without running says why in the run's evidence_md. Callers have already
 * checked that the viewer may read the run.
 */
export async function readWaitingStages(sql: Sql, runId: string): Promise<WaitingStage[]> {
  return await sql<WaitingStage[]>`
    select stage_key, kind, status, evidence_md from verification_stage_results
    where verification_run_id = ${runId} and status <> 'finished' and mechanism is null
    order by position`;
}
