import type { Services } from "../core/services/services.ts";
import { resolveBinding } from "../verification/resolve-binding.ts";
import { enqueueConformance } from "./enqueue-conformance.ts";

/**
 * Enqueues the conformance of pending implementations that have no job and whose image can run
 * now: a runtime bound or an engine installed after they were published gets them checked
 * within a sweep. Returns the ids enqueued.
 */
export async function sweepPendingConformance(services: Services): Promise<string[]> {
  const { sql } = services;
  const rows = await sql<{ id: string; image_ref: string }[]>`
    select vi.id, vi.runtime->>'image_ref' as image_ref from verifier_implementations vi
    where vi.conformance->>'status' = 'pending' and vi.yanked_at is null
      and not exists (select 1 from graphile_worker.jobs j where j.key = 'conformance:' || vi.id)`;
  const engines = await services.sandbox.engines();
  const enqueued: string[] = [];
  for (const row of rows) {
    if ((await resolveBinding(sql, engines, row.image_ref)).kind !== "ready") continue;
    await enqueueConformance(sql, row.id);
    enqueued.push(row.id);
  }
  return enqueued;
}
