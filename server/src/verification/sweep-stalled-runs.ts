import { enqueueRun } from "../core/jobs/enqueue-run.ts";
import type { Services } from "../core/services/services.ts";

/** A run whose worker has not said it is alive for this long is taken to have lost its worker. */
export const STALL_MS = 90_000;

/**
 * Finds runs whose worker died (spec 3: a run never stays `running` forever): `running` with a
 * heartbeat older than STALL_MS, or `queued` with its job locked for that long, and enqueues them
 * again under their job key. Runs waiting on an open review are not stalled. The next execution keeps the finished stages, restarts the half-run
 * one, and past MAX_RESTARTS finishes the run `error`. Returns the ids it enqueued.
 */
export async function sweepStalledRuns(services: Services): Promise<string[]> {
  const { sql } = services;
  const before = new Date(services.clock().getTime() - STALL_MS);
  // A run whose review stage waits on an open ReviewProcess has no worker on purpose: the
  // process enqueues it when it finishes (and the review sweep makes sure it does).
  const rows = await sql<{ id: string }[]>`
    select r.id from verification_runs r
    where ((r.status = 'running' and r.heartbeat_at < ${before})
       or (r.status = 'queued' and exists (
             select 1 from graphile_worker.jobs j where j.key = r.id and j.locked_at < ${before}))
       or (r.status <> 'finished' and r.created_at < ${before}
           and not exists (select 1 from graphile_worker.jobs j where j.key = r.id)))
      and not exists (
        select 1 from verification_stage_results st
        join review_processes p on p.verification_run_id = st.verification_run_id and p.stage_key = st.stage_key
        where st.verification_run_id = r.id and st.kind = 'review' and st.status = 'running' and p.status = 'open')
      -- Nor is one whose external stage waits for its partner: the attestation or the deadline
      -- sweep (sweepAttestationDeadlines) wakes it.
      and not exists (
        select 1 from verification_stage_results st
        where st.verification_run_id = r.id and st.kind = 'external' and st.status = 'running'
          and st.attestation_due_at > ${services.clock()})`;
  for (const { id } of rows) {
    await enqueueRun(sql, id);
    services.log.warn({ verification_run_id: id }, "verification run stalled; enqueued again");
  }
  return rows.map((row) => row.id);
}
