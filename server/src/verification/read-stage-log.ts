import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { readBlobBytes } from "../downloads/read-blob-bytes.ts";
import { readRunWithholding } from "../sealing/read-run-withholdings.ts";
import { isStageEvidenceWithheld } from "../sealing/run-withholding.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { readableRunSql } from "./readable-run-sql.ts";
import type { StageLog } from "./stage-record.ts";

/**
 * The captured output of one sandbox stage of a run the viewer may read; not_found otherwise. A
 * protected stage's log on a sealed evaluation is `withheld` from all but the Problem's managers
 * until label release: a checker's output may quote the sealed input it read.
 */
export async function readStageLog(
  services: Services,
  viewer: Viewer,
  runId: string,
  stageKey: string,
): Promise<{ log: StageLog; bytes: Buffer }> {
  const { sql } = services;
  const [row] = await sql<{ log: StageLog | null; problem_revision_id: string }[]>`
    select st.log, r.problem_revision_id from verification_stage_results st join verification_runs r on r.id = st.verification_run_id
    where r.id = ${runId} and st.stage_key = ${stageKey} and ${readableRunSql(sql, viewer)}`;
  if (!row?.log) {
    throw new ServiceError(
      "not_found",
      `run "${runId}" has no captured log for a stage "${stageKey}" that you can read`,
      {
        verification_run_id: runId,
        stage_key: stageKey,
      },
    );
  }
  const withholding = await readRunWithholding(
    sql,
    { viewer, now: services.clock() },
    row.problem_revision_id,
  );
  if (isStageEvidenceWithheld(withholding, stageKey)) {
    throw new ServiceError(
      "withheld",
      `the log of stage "${stageKey}" is withheld until ${withholding.evidenceReleaseAt}: the stage reads sealed inputs, and only the problem's managers see its output before they are released`,
      { verification_run_id: runId, stage_key: stageKey, withheld_until: withholding.evidenceReleaseAt },
    );
  }
  return { log: row.log, bytes: await readBlobBytes(services.blobs, row.log.content_hash) };
}
