import { enqueueRun } from "../core/jobs/enqueue-run.ts";
import type { Services } from "../core/services/services.ts";

/**
 * Wakes every unfinished run whose external stage waits past its attestation deadline, so its
 * execution ends the stage `inconclusive` (runExternalStage). Runs on the worker's minute sweep;
 * returns the runs it enqueued.
 */
export async function sweepAttestationDeadlines(services: Services): Promise<string[]> {
  const rows = await services.sql<{ id: string }[]>`
    select distinct st.verification_run_id as id from verification_stage_results st
    join verification_runs r on r.id = st.verification_run_id
    where st.kind = 'external' and st.status = 'running' and st.attestation_due_at <= ${services.clock()}
      and r.status <> 'finished'`;
  for (const { id } of rows) await enqueueRun(services.sql, id);
  return rows.map((row) => row.id);
}
