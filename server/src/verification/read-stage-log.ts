import type { Services } from "../context/services.ts";
import { ServiceError } from "../errors/service-error.ts";
import { readBlobBytes } from "../problems/read-blob-bytes.ts";
import type { Viewer } from "../work/viewer.ts";
import { readableRunSql } from "./readable-run-sql.ts";
import type { StageLog } from "./stage-record.ts";

/** The captured output of one sandbox stage of a run the viewer may read; not_found otherwise. */
export async function readStageLog(
  services: Services,
  viewer: Viewer,
  runId: string,
  stageKey: string,
): Promise<{ log: StageLog; bytes: Buffer }> {
  const { sql } = services;
  const [row] = await sql<{ log: StageLog | null }[]>`
    select st.log from verification_stage_results st join verification_runs r on r.id = st.verification_run_id
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
  return { log: row.log, bytes: await readBlobBytes(services.blobs, row.log.content_hash) };
}
