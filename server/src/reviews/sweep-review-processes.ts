import type { Services } from "../core/services/services.ts";
import { advanceReviewProcess } from "./advance-review-process.ts";
import { agentJobKey, enqueueAgentSeat } from "./review-jobs.ts";

/**
 * The minute sweep's review part, in case a timer or a wake-up was lost: advances every open
 * process with a hold or a deadline passed, an open review node with all its submissions in, or
 * no node open at all (started but never advanced); and queues again each live agent assignment
 * whose job is gone. Every advance is idempotent, so a process found here and by its own timer
 * is advanced once in effect. Returns the processes it advanced.
 */
export async function sweepReviewProcesses(services: Services): Promise<string[]> {
  const { sql } = services;
  const now = services.clock();
  const due = await sql<{ id: string }[]>`
    select p.id from review_processes p
    where p.status = 'open' and (
      exists (select 1 from review_assignments a
              where a.review_process_id = p.id and a.status = 'claimed' and a.hold_until <= ${now})
      or exists (select 1 from review_nodes n
                 where n.review_process_id = p.id and n.status = 'open' and n.deadline_at <= ${now})
      or exists (select 1 from review_nodes n
                 where n.review_process_id = p.id and n.status = 'open' and n.type = 'review'
                   and n.seats <= (select count(*) from review_assignments a
                                   where a.review_process_id = p.id and a.node_id = n.node_id and a.status = 'submitted'))
      or not exists (select 1 from review_nodes n where n.review_process_id = p.id and n.status = 'open'))
    order by p.created_at
    limit 500`;
  for (const { id } of due) await advanceReviewProcess(services, id);
  const orphans = await sql<{ id: string }[]>`
    select a.id from review_assignments a
    join review_processes p on p.id = a.review_process_id
    where p.status = 'open' and a.reviewer_kind = 'agent' and a.status = 'claimed'
      and a.claimed_at <= ${new Date(now.getTime() - 60_000)}
      and not exists (select 1 from graphile_worker.jobs j where j.key = 'review_agent:' || a.id)`;
  for (const { id } of orphans) {
    await enqueueAgentSeat(sql, id);
    services.log.warn(
      { assignment_id: id, job_key: agentJobKey(id) },
      "agent review job lost; enqueued again",
    );
  }
  return due.map((row) => row.id);
}
